package org.depengine.device.common;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;

/**
 * The one thread of a device on which its completion callbacks run, in the order they are handed over.
 * A driver reports completions on its own threads, where a callback must not call the driver (CUDA) or
 * runs on a new Java thread each time (JOCL); handing them here gives engines and listeners one stable,
 * Java-owned thread. The thread is a daemon and ends when idle for 30 s, so an unused device keeps no
 * thread alive; it is named {@code depengine-<type>-<id>-<role>-<n>}. Thread-safe.
 */
public final class CompletionThread implements Executor {
    private final ThreadPoolExecutor executor;

    /** A completion thread for the device {@code ctx}; {@code role} goes into the thread's name. */
    public CompletionThread(Context ctx, String role) {
        AtomicInteger threads = new AtomicInteger();
        String prefix = "depengine-" + ctx.deviceType() + "-" + ctx.deviceId() + "-" + role + "-";
        executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, prefix + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        executor.allowCoreThreadTimeOut(true);
    }

    /** Runs {@code task} on the completion thread; after {@link #close()}, on the caller, so nothing is lost. */
    @Override
    public void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** Lets the tasks handed over so far finish, then ends the thread. Idempotent. */
    public void close() {
        executor.shutdown();
    }

    /**
     * After {@link #close()}: waits until the tasks handed over have run, at most {@code timeout}.
     *
     * @return whether they have all run (false on timeout, or if interrupted: the status is kept)
     */
    public boolean awaitClosed(Duration timeout) {
        try {
            return executor.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return executor.isTerminated();
        }
    }
}
