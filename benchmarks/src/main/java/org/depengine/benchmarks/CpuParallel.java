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
 * Independent ops of G µs of calibrated busy-spin each (10 ms of serial work per run): speed-up over
 * the serial loop on all cores, and the smallest grain that still reaches 50 % efficiency (Task
 * Bench's METG).
 * Score: time of one whole run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CpuParallel {

    /** The engines. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"1", "10", "100"})
        public int grainMicros;
        @Param({"naive", "pooled", "perdevice"})
        public String engine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.cpuParallel(grainMicros)), engine);
        }
    }

    /** The same op list on the baselines. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"1", "10", "100"})
        public int grainMicros;
        @Param({"serial", "cf", "fjp"})
        public String baseline;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.cpuParallel(grainMicros)), baseline);
        }
    }

    /** Dexecutor, which fits this shape (a run stays well under a second). */
    @State(Scope.Benchmark)
    public static class DexecutorBaseline extends TrialState {
        @Param({"1", "10", "100"})
        public int grainMicros;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.cpuParallel(grainMicros)), "dexecutor");
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
}
