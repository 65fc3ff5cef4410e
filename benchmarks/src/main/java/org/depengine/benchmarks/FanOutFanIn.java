package org.depengine.benchmarks;

import java.util.concurrent.TimeUnit;
import org.depengine.benchmarks.workload.Workload;
import org.depengine.benchmarks.workload.Workloads;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One writer, F readers each writing its own variable, one joiner reading them all; repeated to about
 * 16K ops. Dexecutor is left out: seconds per run at F = 16 already.
 * Score: time of one whole run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FanOutFanIn {

    /** The engines. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"16", "256", "4096"})
        public int fanOut;
        @Param({"naive", "pooled", "perdevice"})
        public String engine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.fanOutFanIn(fanOut)), engine);
        }
    }

    /** The same op list on the baselines. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"16", "256", "4096"})
        public int fanOut;
        @Param({"serial", "cf", "fjp"})
        public String baseline;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.fanOutFanIn(fanOut)), baseline);
        }
    }

    @Benchmark
    public void engine(Engines s) {
        s.trial.runOnce();
    }

    @Benchmark
    public void baseline(Baselines s) {
        s.trial.runOnce();
    }
}
