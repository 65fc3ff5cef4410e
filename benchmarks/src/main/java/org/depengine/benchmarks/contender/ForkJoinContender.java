package org.depengine.benchmarks.contender;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.benchmarks.workload.DepGraph;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.Workload;

/**
 * A {@link ForkJoinPool} driven by hand-wired pending counters over the precomputed
 * {@link DepGraph}: each op's counter starts at its number of predecessors plus one (the "not yet
 * submitted" guard, as in the engines); submitting and each finished predecessor count it down, and
 * whoever takes it to zero runs it. A finishing task runs its first released successor itself and
 * forks the others. The graph is derived outside the timed region, so this is the cost of executing
 * a known static graph (as Taskflow does), a floor for the engines' dynamic tracking.
 */
final class ForkJoinContender implements Contender {
    private final Workload workload;
    private final DepGraph graph;
    private final OpBody body;
    private final ForkJoinPool pool;
    private final AtomicIntegerArray pending;
    private final AtomicInteger remaining = new AtomicInteger();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private volatile CountDownLatch done = new CountDownLatch(0);

    ForkJoinContender(Workload workload, int threads) {
        this.workload = workload;
        this.graph = workload.graph();
        this.body = workload.body();
        this.pool = new ForkJoinPool(threads);
        this.pending = new AtomicIntegerArray(graph.size());
    }

    @Override
    public String name() {
        return "fjp";
    }

    @Override
    public void reset() {
        workload.beforeRun();
        int n = graph.size();
        for (int i = 0; i < n; i++) {
            pending.lazySet(i, graph.preds(i).length + 1);
        }
        remaining.set(n);
        error.set(null);
        done = new CountDownLatch(1); // volatile write: publishes the counters to the pool's threads
    }

    @Override
    public void submit(int from, int to) {
        for (int i = from; i < to; i++) {
            if (pending.decrementAndGet(i) == 0) {
                pool.execute(new Node(i));
            }
        }
    }

    @Override
    public void awaitAll() {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the fork/join run", e);
        }
        Throwable t = error.get();
        if (t != null) {
            throw new IllegalStateException("an op failed in the fork/join baseline", t);
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }

    /** Runs op {@code i}, then keeps running the first successor it releases. */
    private final class Node extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final int first;

        Node(int first) {
            this.first = first;
        }

        @Override
        protected void compute() {
            int i = first;
            while (i >= 0) {
                try {
                    body.run(i, null);
                } catch (Throwable t) {
                    error.compareAndSet(null, t); // keep releasing, so that awaitAll ends
                }
                int next = -1;
                for (int s : graph.succs(i)) {
                    if (pending.decrementAndGet(s) == 0) {
                        if (next < 0) {
                            next = s;
                        } else {
                            new Node(s).fork();
                        }
                    }
                }
                if (remaining.decrementAndGet() == 0) {
                    done.countDown();
                }
                i = next;
            }
        }
    }
}
