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
 * METG (Task Bench's minimum effective task granularity): independent ops of G ns of calibrated
 * busy-spin each, 4 ms of serial work per run, for a ladder of G. The report finds, for each engine,
 * the op length at which its efficiency (T_ideal ÷ T, T_ideal = serial time ÷ cores) crosses 50 %,
 * interpolating between the measured lengths; {@code replay} does it for the run captured once and
 * replayed. {@code CpuParallel} covers the µs range with speed-ups.
 * Score: time of one whole run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class Metg {

    /** The engines. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"250", "500", "1000", "2000", "4000", "8000"})
        public int grainNanos;
        @Param({"naive", "pooled", "perdevice"})
        public String engine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.metg(grainNanos)), engine);
        }
    }

    /**
     * The engines replaying the run, captured once ({@code ENGINE+replay}): METG with replay, beside
     * METG without ({@link Engines}). A benchmark of its own, so the default ladder costs what it did.
     */
    @State(Scope.Benchmark)
    public static class ReplayEngines extends TrialState {
        @Param({"250", "500", "1000", "2000", "4000", "8000"})
        public int grainNanos;
        @Param({"naive+replay", "pooled+replay", "perdevice+replay"})
        public String engine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.metg(grainNanos)), engine);
        }
    }

    /** The serial run of the same bodies: the efficiency's reference. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"250", "500", "1000", "2000", "4000", "8000"})
        public int grainNanos;
        @Param({"serial"})
        public String baseline;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.metg(grainNanos)), baseline);
        }
    }

    @Benchmark
    public void engine(Engines s) {
        s.trial.runOnce();
    }

    @Benchmark
    public void replay(ReplayEngines s) {
        s.trial.runOnce();
    }

    @Benchmark
    public void baseline(Baselines s) {
        s.trial.runOnce();
    }
}
