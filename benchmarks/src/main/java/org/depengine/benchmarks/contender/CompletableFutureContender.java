package org.depengine.benchmarks.contender;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;
import org.depengine.benchmarks.workload.DepGraph;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.Workload;

/**
 * A {@link CompletableFuture} graph over the precomputed {@link DepGraph}: an op with no predecessor
 * is {@code runAsync}, one with one predecessor {@code thenRunAsync} on it, one with several
 * {@code allOf(...).thenRunAsync}. The futures are built in the timed region (that is the cost a
 * user of this style pays per op); the graph itself is derived outside it. Runs on a
 * {@link ForkJoinPool} of its own with one thread per core (the common pool has one thread fewer).
 */
final class CompletableFutureContender implements Contender {
    private final Workload workload;
    private final DepGraph graph;
    private final Runnable[] tasks;
    private final ForkJoinPool pool;
    private final int[] sinks;
    private CompletableFuture<?>[] futures;

    CompletableFutureContender(Workload workload, int threads) {
        this.workload = workload;
        this.graph = workload.graph();
        this.pool = new ForkJoinPool(threads);
        this.sinks = graph.sinks();
        OpBody body = workload.body();
        tasks = new Runnable[graph.size()];
        for (int i = 0; i < tasks.length; i++) {
            int op = i;
            tasks[i] = () -> body.run(op, null);
        }
    }

    @Override
    public String name() {
        return "cf";
    }

    @Override
    public void reset() {
        workload.beforeRun();
        futures = new CompletableFuture<?>[graph.size()];
    }

    @Override
    public void submit(int from, int to) {
        CompletableFuture<?>[] f = futures;
        for (int i = from; i < to; i++) {
            int[] preds = graph.preds(i);
            switch (preds.length) {
                case 0:
                    f[i] = CompletableFuture.runAsync(tasks[i], pool);
                    break;
                case 1:
                    f[i] = f[preds[0]].thenRunAsync(tasks[i], pool);
                    break;
                default:
                    CompletableFuture<?>[] before = new CompletableFuture<?>[preds.length];
                    for (int k = 0; k < preds.length; k++) {
                        before[k] = f[preds[k]];
                    }
                    f[i] = CompletableFuture.allOf(before).thenRunAsync(tasks[i], pool);
                    break;
            }
        }
    }

    @Override
    public void awaitAll() {
        CompletableFuture<?>[] last = new CompletableFuture<?>[sinks.length];
        for (int k = 0; k < sinks.length; k++) {
            last[k] = futures[sinks[k]];
        }
        try {
            CompletableFuture.allOf(last).join();
        } catch (CompletionException e) {
            throw new IllegalStateException("an op failed in the CompletableFuture baseline", e.getCause());
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
