package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.internal.util.ConcurrencyUtil;
import com.hazelcast.internal.util.ThreadUtil;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.spi.impl.operationexecutor.OperationHostileThread;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hazelcast runs the callbacks of its futures (every map call's completion) on the common fork-join
 * pool, or, where that pool has a single thread (a machine with 2 cores or fewer), on a new thread
 * started for each callback. Starting a thread per call cost a small key's round more than its bytes,
 * so there this process's Hazelcast gets a pool of reused threads instead, that grows as the new threads
 * would (callbacks may block) and lets idle ones go. Set once per process, before the first instance.
 */
public final class CallbackThreads {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackThreads.class);
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static volatile boolean done;

    /**
     * Runs a map call's completion on the thread that completes the call (Hazelcast's response thread): one
     * thread hand-off fewer per call, which on 2 cores is a large part of a small key's round. For
     * completions that never block: they complete futures, copy a reply's value, or start further
     * asynchronous calls. A call completed on a partition thread (a local call without backups) hands its
     * completion to Hazelcast's callback executor as before: a partition thread may not make remote calls.
     */
    public static final Executor ON_RESPONSE_THREAD = task -> {
        if (ThreadUtil.isRunningOnPartitionThread()) {
            ConcurrencyUtil.getDefaultAsyncExecutor().execute(task);
        } else {
            task.run();
        }
    };

    private CallbackThreads() {
    }

    /**
     * {@code map.submitToKey(key, op)}, from this thread, or, on a Hazelcast thread that may not make
     * remote calls (a response thread running a completion inline, see {@link #ON_RESPONSE_THREAD}), from
     * Hazelcast's callback executor.
     */
    public static <R> CompletionStage<R> submitToKey(IMap<String, KeyState> map, String key, EntryProcessor<String, KeyState, R> op) {
        if (!(Thread.currentThread() instanceof OperationHostileThread)) {
            return map.submitToKey(key, op);
        }
        CompletableFuture<R> f = new CompletableFuture<>();
        ConcurrencyUtil.getDefaultAsyncExecutor().execute(() -> {
            try {
                map.submitToKey(key, op).whenCompleteAsync((r, e) -> {
                    if (e != null) {
                        f.completeExceptionally(e);
                    } else {
                        f.complete(r);
                    }
                }, ON_RESPONSE_THREAD);
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    /** Sets Hazelcast's callback executor once per process, before the first instance (see the class comment). */
    public static synchronized void reuse() {
        if (done) {
            return;
        }
        done = true;
        if (ForkJoinPool.getCommonPoolParallelism() > 1) {
            return; // Hazelcast uses the common pool: nothing to change
        }
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "depengine-hz-callback-" + COUNT.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        ConcurrencyUtil.setDefaultAsyncExecutor(pool);
        LOG.debug("Hazelcast's future callbacks run on a pool of reused threads (the common pool has one thread)");
    }
}
