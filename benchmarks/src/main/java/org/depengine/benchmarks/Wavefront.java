package org.depengine.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * An n×n grid of zero-work ops, (i, j) reading (i−1, j) and (i, j−1): parallelism grows and
 * shrinks along the anti-diagonals (Taskflow's wavefront benchmark).
 * Methods and states: {@link WorkloadBenchmark}; score: time of one whole run.
 */
@State(Scope.Benchmark)
public class Wavefront extends WorkloadBenchmark {
    /** The grid's side. */
    @Param({"64", "128"})
    public int n;

    @Benchmark
    public void dexecutor(DexecutorBaseline s) {
        s.trial.runOnce();
    }
}
