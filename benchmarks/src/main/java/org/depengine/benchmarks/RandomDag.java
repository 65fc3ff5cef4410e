package org.depengine.benchmarks;

import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
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
 * MXNet's engine test: 10,000 zero-work ops over a random DAG ({@code mxnet}: 100 variables, 2–19
 * reads; {@code wide}: 1,000 variables, 0–3 reads; one write each), with the profiler off or on.
 * Score: time of one whole run (push everything, {@code waitForAll}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RandomDag {

    /** The engines, with and without a profiler. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"mxnet", "wide"})
        public String shape;
        @Param({"naive", "pooled", "perdevice"})
        public String engine;
        @Param({"off", "on"})
        public String profiling;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.randomDag(shape)), engine, Context.cpu(), onOff(profiling));
        }
    }

    /** The same op list on the baselines. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"mxnet", "wide"})
        public String shape;
        @Param({"serial", "cf", "fjp"})
        public String baseline;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.randomDag(shape)), baseline);
        }
    }

    /**
     * Dexecutor, on the wide shape only: its run time grows faster than linearly with the edges
     * (seconds per run on the mxnet shape), see the module README.
     */
    @State(Scope.Benchmark)
    public static class DexecutorBaseline extends TrialState {
        @Param({"wide"})
        public String shape;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.randomDag(shape)), "dexecutor");
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

    @Benchmark
    public void dexecutor(DexecutorBaseline s) {
        s.trial.runOnce();
    }

    /** "on" or "off" as a boolean. */
    static boolean onOff(String value) {
        switch (value) {
            case "on":
                return true;
            case "off":
                return false;
            default:
                throw new IllegalArgumentException("profiling must be on or off, got '" + value + "'");
        }
    }
}
