package org.depengine.benchmarks;

/**
 * 2^16 zero-work ops, op i writing variable i mod 1,000 and reading nothing: independent ops, so the
 * cost is the push path and the hand-off to the workers (the "independent ops over 1,000 vars" row of
 * the peer comparison; the CompletableFuture graph is the bar).
 * Methods, parameters and states: {@link PushPathBenchmark}.
 */
public class Independent extends PushPathBenchmark {
}
