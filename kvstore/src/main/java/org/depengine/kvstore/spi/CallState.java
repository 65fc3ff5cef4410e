package org.depengine.kvstore.spi;

import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.depengine.kvstore.Updater;

/**
 * A store's state at the calls, as the calls happen (its ops learn it in op order, through the keys'
 * variables): the period the next call's rounds are of, whether this worker signalled its end of data in
 * it, whether it pushed yet, and the updater. One lock makes each change atomic with the ops it pushes, so
 * no push slips between a barrier's end of a period and its start of the next, or past the updater's set.
 * Thread-safe.
 */
final class CallState {
    private final Object lock = new Object();
    private volatile boolean pushed;
    private volatile boolean endOfData;
    /** The number of barrier() calls so far (plus a resumed checkpoint's period): the period of the next call's rounds. */
    private volatile int period;
    private volatile Updater updater;

    int period() {
        return period;
    }

    Updater updater() {
        return updater;
    }

    /** The store continues a checkpoint's job: its calls start in {@code p}. Before any call. */
    void resumeAt(int p) {
        period = p;
    }

    /**
     * Notes that this worker pushes, refusing a push after its end of data unless the call is recorded (its
     * replay may come after the next barrier: its send checks when it runs).
     *
     * @throws IllegalStateException with {@code refusal}'s message
     */
    void push(boolean recording, Supplier<String> refusal) {
        synchronized (lock) {
            if (endOfData && !recording) {
                throw new IllegalStateException(refusal.get());
            }
            pushed = true;
        }
    }

    /**
     * Sets the updater.
     *
     * @throws IllegalStateException with {@code refusal}'s message if this worker pushed already
     */
    void setUpdater(Updater u, Supplier<String> refusal) {
        synchronized (lock) {
            if (pushed) {
                throw new IllegalStateException(refusal.get());
            }
            updater = u;
        }
    }

    /** A barrier: {@code endAndStart} pushes the end of the current period's ops; then the next period starts. */
    void barrier(IntConsumer endAndStart) {
        synchronized (lock) {
            endAndStart.accept(period);
            period++;
            endOfData = false;
        }
    }

    /** This worker's end of data in the current period: {@code end} pushes its ops, once per period. */
    void endOfData(IntConsumer end) {
        synchronized (lock) {
            if (!endOfData) {
                endOfData = true;
                end.accept(period);
            }
        }
    }
}
