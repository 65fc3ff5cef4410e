package org.depengine.benchmarks;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * One write of a variable, then R ops reading it (each writing its own output), repeated to about
 * 16K ops: concurrent readers of one version, and a writer waiting for all of them. Dexecutor is left
 * out: seconds per run.
 * Methods and states: {@link WorkloadBenchmark}; score: time of one whole run.
 */
@State(Scope.Benchmark)
public class ReadHeavy extends WorkloadBenchmark {
    /** The readers per write. */
    @Param({"8", "64", "1024"})
    public int reads;
}
