package org.depengine.benchmarks;

/**
 * 2^16 zero-work ops all writing one variable: a chain, so every op waits for the one before; the
 * cost of handing a released successor on (same-thread hand-off vs a park/unpark per link). In
 * {@code bulk} ({@code ENGINE+bulk16}), 16 links merge into one op.
 * Dexecutor is left out: its run time grows faster than linearly (about half a minute per run here).
 * Methods, parameters and states: {@link PushPathBenchmark}.
 */
public class LinearChain extends PushPathBenchmark {
}
