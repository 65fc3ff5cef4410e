package org.depengine.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The push-path benchmarks: zero-work ops, so a run costs only the engine's push and hand-off, timed
 * plain ({@code engine}), inside {@code engine.bulk(16)} ({@code bulk}, contender {@code ENGINE+bulk16})
 * and on the baselines ({@code baseline}); the rest of the scaffolding is {@link WorkloadBenchmark}'s.
 * Score: time of one whole run.
 */
public abstract class PushPathBenchmark extends WorkloadBenchmark {

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

    @Benchmark
    public void bulk(BulkEngines s) {
        s.trial.runOnce();
    }
}
