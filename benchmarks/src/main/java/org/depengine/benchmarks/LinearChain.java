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
 * 2^16 zero-work ops all writing one variable: a chain, so every op waits for the one before; the
 * cost of handing a released successor on (same-thread hand-off vs a park/unpark per link).
 * Dexecutor is left out: its run time grows faster than linearly (about half a minute per run here).
 * The {@code bulk} method ({@code ENGINE+bulk16}) pushes each run inside {@code engine.bulk(16)}: 16 links merge into one op.
 * Score: time of one whole run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class LinearChain {

    /** The engines. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"naive", "pooled", "perdevice"})
        public String engine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.linearChain()), engine);
        }
    }

    /**
     * The engines pushing each run inside {@code engine.bulk(16)}. A parameter of its own (not
     * {@code engine}), so that {@code -p engine=...} on the command line leaves these alone.
     */
    @State(Scope.Benchmark)
    public static class BulkEngines extends TrialState {
        @Param({"pooled+bulk16", "perdevice+bulk16"})
        public String bulkEngine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.linearChain()), bulkEngine);
        }
    }

    /** The same op list on the baselines. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"serial", "cf", "fjp"})
        public String baseline;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(Workload.cpu(Workloads.linearChain()), baseline);
        }
    }

    @Benchmark
    public void engine(Engines s) {
        s.trial.runOnce();
    }

    @Benchmark
    public void bulk(BulkEngines s) {
        s.trial.runOnce();
    }

    @Benchmark
    public void baseline(Baselines s) {
        s.trial.runOnce();
    }
}
