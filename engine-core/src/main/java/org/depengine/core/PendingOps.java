package org.depengine.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.core.tracker.OpAccount;

/**
 * Counts the ops that are pushed and not finished, in epochs, so that {@code waitForAll} waits for
 * the ops pushed before it and not for ops other threads keep pushing afterwards (which a single
 * counter waiting for zero would, possibly forever).
 *
 * <p>Each op enters the current epoch at push and exits it when finished. {@link #seal()} closes the
 * current epoch (no op can enter it any more) and opens a new one; the sealed epoch is finished when
 * its count drops to zero. Waiting for a sealed epoch means waiting for it and every older epoch.
 */
final class PendingOps {
    private static final long SEALED = Long.MIN_VALUE; // sign bit: the epoch takes no new ops

    /** One epoch: a count of unfinished ops with a sealed bit. */
    static final class Epoch implements OpAccount {
        private final AtomicLong state = new AtomicLong();
        private volatile Epoch older;
        private volatile boolean done;
        private List<Runnable> onFinish; // guarded by this; null when none

        Epoch(Epoch older) {
            this.older = older;
        }

        boolean tryEnter() {
            while (true) {
                long s = state.get();
                if (s < 0) {
                    return false;
                }
                if (state.compareAndSet(s, s + 1)) {
                    return true;
                }
            }
        }

        @Override
        public void exit() {
            if (state.decrementAndGet() == SEALED) {
                finish();
            }
        }

        void seal() {
            long s;
            do {
                s = state.get();
            } while (!state.compareAndSet(s, s | SEALED));
            if ((s | SEALED) == SEALED) {
                finish();
            }
        }

        private void finish() {
            List<Runnable> callbacks;
            synchronized (this) {
                done = true;
                notifyAll();
                callbacks = onFinish;
                onFinish = null;
            }
            if (callbacks != null) {
                callbacks.forEach(Runnable::run);
            }
        }

        /** Runs {@code r} when this epoch alone is finished: now, or on the thread that finishes it. */
        void whenFinished(Runnable r) {
            synchronized (this) {
                if (!done) {
                    if (onFinish == null) {
                        onFinish = new ArrayList<>(1);
                    }
                    onFinish.add(r);
                    return;
                }
            }
            r.run();
        }

        long pending() {
            return state.get() & Long.MAX_VALUE;
        }

        /** Waits for this epoch alone; false on timeout. */
        synchronized boolean await(long deadlineNanos) throws InterruptedException {
            while (!done) {
                if (deadlineNanos == Long.MAX_VALUE) {
                    wait();
                } else {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    wait(left / 1_000_000L, (int) (left % 1_000_000L));
                }
            }
            return true;
        }
    }

    private volatile Epoch current = new Epoch(null);

    /** Counts a new op; returns the epoch it must {@link Epoch#exit()} when finished. */
    Epoch enter() {
        while (true) {
            Epoch e = current;
            if (e.tryEnter()) {
                return e;
            }
            Thread.onSpinWait(); // a seal is replacing the epoch right now
        }
    }

    /** Seals the current epoch and opens a new one; returns the sealed epoch. */
    synchronized Epoch seal() {
        Epoch old = current;
        current = new Epoch(old);
        old.seal();
        pruneFinished(old);
        return old;
    }

    /** Ops not yet finished, over all epochs (approximate while pushes run). */
    long pending() {
        long n = 0;
        for (Epoch e = current; e != null; e = e.older) {
            n += e.pending();
        }
        return n;
    }

    /** Waits until {@code sealed} and every older epoch are finished; false on timeout. */
    static boolean await(Epoch sealed, long deadlineNanos) throws InterruptedException {
        for (Epoch e = sealed; e != null; e = e.older) {
            if (!e.await(deadlineNanos)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code r} once {@code sealed} and every older epoch are finished, without blocking: on this
     * thread if they already are, else on the thread that finishes the last of them.
     */
    static void whenFinished(Epoch sealed, Runnable r) {
        List<Epoch> open = new ArrayList<>();
        for (Epoch e = sealed; e != null; e = e.older) {
            if (!e.done) {
                open.add(e);
            }
        }
        AtomicInteger left = new AtomicInteger(open.size() + 1); // + 1: registration still going on
        Runnable one = () -> {
            if (left.decrementAndGet() == 0) {
                r.run();
            }
        };
        open.forEach(e -> e.whenFinished(one));
        one.run();
    }

    /** Unlinks the oldest epochs while they are finished, so the chain stays short. */
    private static void pruneFinished(Epoch newest) {
        while (true) {
            Epoch e = newest;
            if (e.older == null) {
                return;
            }
            while (e.older.older != null) {
                e = e.older;
            }
            if (!e.older.done) {
                return;
            }
            e.older = null;
        }
    }
}
