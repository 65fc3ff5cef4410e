package org.depengine.device.common;

import java.time.Duration;

/**
 * A count of native callbacks set and not yet finished with their native work, that a close can wait
 * to reach zero: a driver reports completions on its own threads, after {@code clFinish} or
 * {@code cuStreamSynchronize} have returned, so releasing a queue or a context as soon as the work is
 * done could free what a late callback still touches. Thread-safe.
 */
public final class InFlight {
    private int count;

    /** A count at zero. */
    public InFlight() {
    }

    /** One more callback set; call before handing it to the driver. */
    public synchronized void begin() {
        count++;
    }

    /** One callback finished with its native work (or was never set after all). */
    public synchronized void end() {
        if (count == 0) {
            throw new IllegalStateException("more callbacks ended than began");
        }
        if (--count == 0) {
            notifyAll();
        }
    }

    /** How many callbacks are in flight now. */
    public synchronized int count() {
        return count;
    }

    /**
     * Waits until no callback is in flight, at most {@code timeout}.
     *
     * @return true if none is in flight; false if some still were when the time was up (or the waiting
     *     thread was interrupted; its interrupt status is kept)
     */
    public synchronized boolean awaitNone(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return count == 0;
            }
        }
        return true;
    }
}
