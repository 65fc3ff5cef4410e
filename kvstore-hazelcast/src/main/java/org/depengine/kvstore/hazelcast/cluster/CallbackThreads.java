package org.depengine.kvstore.hazelcast.cluster;

import com.hazelcast.internal.util.ConcurrencyUtil;
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
final class CallbackThreads {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackThreads.class);
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static volatile boolean done;

    private CallbackThreads() {
    }

    static synchronized void reuse() {
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
