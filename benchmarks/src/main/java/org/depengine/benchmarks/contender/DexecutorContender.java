package org.depengine.benchmarks.contender;

import com.github.dexecutor.core.DefaultDexecutor;
import com.github.dexecutor.core.DexecutorConfig;
import com.github.dexecutor.core.ExecutionConfig;
import com.github.dexecutor.core.task.ExecutionResults;
import com.github.dexecutor.core.task.Task;
import com.github.dexecutor.core.task.TaskProvider;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.depengine.benchmarks.workload.DepGraph;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.Workload;

/**
 * Dexecutor (a static DAG executed on an {@link ExecutorService}) over the precomputed
 * {@link DepGraph}: each run builds a new {@code DefaultDexecutor} with the graph's edges (Dexecutor
 * executes a graph once) and executes it with {@link ExecutionConfig#TERMINATING}, which blocks the
 * calling thread until every task is done. The graph is known to be acyclic, so its cycle check is
 * replaced by a no-op (it recurses along paths and would overflow the stack on long chains).
 * Only whole runs: {@link #submit} must cover the whole list.
 */
final class DexecutorContender implements Contender {
    private final Workload workload;
    private final DepGraph graph;
    private final ExecutorService pool;
    private final TaskProvider<Integer, Integer> tasks;

    DexecutorContender(Workload workload, int threads) {
        this.workload = workload;
        this.graph = workload.graph();
        this.pool = Executors.newFixedThreadPool(threads);
        OpBody body = workload.body();
        this.tasks = id -> new Task<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public Integer execute() {
                body.run(id, null);
                return id;
            }
        };
    }

    @Override
    public String name() {
        return "dexecutor";
    }

    @Override
    public void reset() {
        workload.beforeRun();
    }

    @Override
    public void submit(int from, int to) {
        if (from != 0 || to != graph.size()) {
            throw new UnsupportedOperationException("Dexecutor runs a whole graph at once: submit(0, " + graph.size()
                    + "), not [" + from + ", " + to + ")");
        }
        DexecutorConfig<Integer, Integer> config = new DexecutorConfig<>(pool, tasks);
        config.setValidator(dag -> { });
        DefaultDexecutor<Integer, Integer> dexecutor = new DefaultDexecutor<>(config);
        for (int i = 0; i < to; i++) {
            int[] preds = graph.preds(i);
            if (preds.length == 0) {
                dexecutor.addIndependent(i);
            } else {
                for (int p : preds) {
                    dexecutor.addDependency(p, i);
                }
            }
        }
        ExecutionResults<Integer, Integer> results = dexecutor.execute(ExecutionConfig.TERMINATING);
        if (!results.getErrored().isEmpty()) {
            throw new IllegalStateException("Dexecutor reported failed tasks: " + results.getErrored());
        }
    }

    @Override
    public void awaitAll() {
        // execute(TERMINATING) has already waited.
    }

    @Override
    public void close() {
        pool.shutdownNow();
        try {
            pool.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
