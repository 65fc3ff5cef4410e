package org.depengine.testkit;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Waits for a value another thread is about to set, by polling it: for counts a worker updates just after
 * the op it counts has finished (so a wait for the op returns first). Fails after a generous bound, so a
 * value that never comes fails the test instead of hanging the build; never a sleep standing in for it.
 */
public final class Eventually {
    /** The bound: far above any real delay, so that only a broken engine reaches it. */
    public static final Duration BOUND = Duration.ofSeconds(60);

    private Eventually() {
    }

    /**
     * Returns once {@code value} gives {@code expected}.
     *
     * @param expected the value waited for
     * @param value reads the value
     * @param what what the value is, for the failure's message
     * @throws AssertionError if it does not within {@link #BOUND}, with the last value read
     */
    public static void equals(long expected, LongSupplier value, String what) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        long v;
        while ((v = value.getAsLong()) != expected) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": expected " + expected + " but was " + v + " after " + BOUND);
            }
            Thread.onSpinWait();
        }
    }
}
