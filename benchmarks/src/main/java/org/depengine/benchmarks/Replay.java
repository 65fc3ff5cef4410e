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

/**
 * Capture and replay (issue #30): the zero-work op lists of {@link RandomDag} ({@code mxnet},
 * {@code wide}), {@link LinearChain} ({@code chain}) and {@link Independent} ({@code independent}),
 * each captured once at setup and replayed per run ({@code ENGINE+replay}), beside the same ops pushed
 * one by one ({@code ENGINE}) and the baselines, in the same run. {@code graph}: {@code whole} captures
 * the whole list (65,536 ops for chain and independent, 10,000 for the DAGs) as one graph, replayed
 * once per run; {@code 1024} runs the first 1,024 ops of the shape repeated to the same length, as a
 * training loop repeats its step, and captures one step, replayed 64 (9 for the DAGs) times per run. Every run ends with
 * {@code waitForAll}; each iteration is checked against the serial oracle. Score: time of one whole
 * run (the report divides by the ops).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class Replay {

    /** The engines, replaying and pushing one by one. */
    @State(Scope.Benchmark)
    public static class Engines extends TrialState {
        @Param({"mxnet", "wide", "chain", "independent"})
        public String shape;
        @Param({"1024", "whole"})
        public String graph;
        @Param({"naive+replay", "naive", "pooled+replay", "pooled", "perdevice+replay", "perdevice"})
        public String engine;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(workload(shape, graph), engine);
        }
    }

    /** The same op lists on the baselines: the serial loop (T_ideal) and the CompletableFuture graph. */
    @State(Scope.Benchmark)
    public static class Baselines extends TrialState {
        @Param({"mxnet", "wide", "chain", "independent"})
        public String shape;
        @Param({"1024", "whole"})
        public String graph;
        @Param({"serial", "cf"})
        public String baseline;

        @Setup(Level.Trial)
        public void open() {
            trial = Trial.open(workload(shape, graph), baseline);
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

    private static Workload workload(String shape, String graph) {
        return Workload.cpu(Workloads.forBenchmark("Replay", Map.of("shape", shape, "graph", graph)));
    }
}
