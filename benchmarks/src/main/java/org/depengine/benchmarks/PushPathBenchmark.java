package org.depengine.benchmarks;

import java.util.Map;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The push-path benchmarks: zero-work ops, so a run costs only the engine's push and hand-off, timed
 * plain ({@code engine}), inside {@code engine.bulk(16)} ({@code bulk}, contender {@code ENGINE+bulk16})
 * and on the baselines ({@code baseline}). A concrete subclass is one workload and only names it: its
 * simple class name is the op list's name in {@link Workloads#forBenchmark}, the same mapping the report
 * uses, so the states below (shared by every subclass, which JMH allows since they are inherited) find
 * their op list from the running benchmark's name instead of each subclass repeating them.
 * Score: time of one whole run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class PushPathBenchmark {

    /** The engines. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"naive", "pooled", "perdevice"})
        public String engine;

        @Setup(Level.Trial)
        public void open(BenchmarkParams benchmark) {
            trial = Trial.open(workloadOf(benchmark), engine);
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
        public void open(BenchmarkParams benchmark) {
            trial = Trial.open(workloadOf(benchmark), bulkEngine);
        }
    }

    /** The same op list on the baselines. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"serial", "cf", "fjp"})
        public String baseline;

        @Setup(Level.Trial)
        public void open(BenchmarkParams benchmark) {
            trial = Trial.open(workloadOf(benchmark), baseline);
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

    /**
     * The op list of the running benchmark, e.g. {@code org.depengine.benchmarks.LinearChain.engine}:
     * the subclass's simple name (these workloads have no parameters of their own).
     */
    static Workload workloadOf(BenchmarkParams benchmark) {
        String name = benchmark.getBenchmark();
        int method = name.lastIndexOf('.');
        String workload = name.substring(name.lastIndexOf('.', method - 1) + 1, method);
        return Workload.cpu(Workloads.forBenchmark(workload, Map.of()));
    }
}
