package org.depengine.benchmarks;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * One writer, F readers each writing its own variable, one joiner reading them all; repeated to about
 * 16K ops. Dexecutor is left out: seconds per run at F = 16 already.
 * Methods and states: {@link WorkloadBenchmark}; score: time of one whole run.
 */
@State(Scope.Benchmark)
public class FanOutFanIn extends WorkloadBenchmark {
    /** The fan-out F. */
    @Param({"16", "256", "4096"})
    public int fanOut;
}
