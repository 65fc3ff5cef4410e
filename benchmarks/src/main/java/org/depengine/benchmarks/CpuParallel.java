package org.depengine.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Independent ops of G µs of calibrated busy-spin each (10 ms of serial work per run): speed-up over
 * the serial loop on all cores, and the smallest grain that still reaches 50 % efficiency (Task
 * Bench's METG).
 * Methods and states: {@link WorkloadBenchmark}; score: time of one whole run.
 */
@State(Scope.Benchmark)
public class CpuParallel extends WorkloadBenchmark {
    /** Each op's busy-spin, µs. */
    @Param({"1", "10", "100"})
    public int grainMicros;

    @Benchmark
    public void dexecutor(DexecutorBaseline s) {
        s.trial.runOnce();
    }
}
