package org.depengine.benchmarks;

import java.util.HashMap;
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
 * The scaffolding every op-list benchmark shares: the engines ({@code engine}) and the baselines
 * ({@code baseline}) over the same op list, in the same run. A concrete subclass is one workload: its
 * simple class name names the op list in {@link Workloads#forBenchmark} (the mapping the report uses
 * too), and the workload's own parameter, if it has one, is a {@code @Param} field of the subclass,
 * which is then itself a {@code @State} (e.g. {@code FanOutFanIn}'s {@code fanOut}); the states below
 * read every parameter of the run from JMH, so no subclass repeats them. Score: time of one whole run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class WorkloadBenchmark {

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

    /** Dexecutor, for the workloads whose runs it finishes in time (a subclass adds a {@code dexecutor} method). */
    @State(Scope.Benchmark)
    public static class DexecutorBaseline extends TrialState {
        @Setup(Level.Trial)
        public void open(BenchmarkParams benchmark) {
            trial = Trial.open(workloadOf(benchmark), "dexecutor");
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

    /**
     * The op list of the running benchmark, e.g. {@code org.depengine.benchmarks.FanOutFanIn.engine}
     * with {@code fanOut=256}: the class's simple name and the run's parameters.
     */
    static Workload workloadOf(BenchmarkParams benchmark) {
        String name = benchmark.getBenchmark();
        int method = name.lastIndexOf('.');
        String workload = name.substring(name.lastIndexOf('.', method - 1) + 1, method);
        Map<String, String> params = new HashMap<>();
        for (String key : benchmark.getParamsKeys()) {
            params.put(key, benchmark.getParam(key));
        }
        return Workload.cpu(Workloads.forBenchmark(workload, params));
    }
}
