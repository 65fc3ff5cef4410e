package org.depengine.core;

import java.util.ArrayList;
import java.util.List;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
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
    /*
     * Implementation overview.
     *
     * An epoch's count is striped: every thread adds to one cell of its own (handed out in turn, fixed
     * for the thread's life), each cell on its own cache line, so that the pusher's +1 and the
     * worker's -1 of the same op do not bounce one line between the cores on every op. The count is
     * the sum of the cells; it is read only once the epoch is sealed, and a cell may go negative
     * (a worker's cell collects exits of ops entered on the pusher's cell).
     *
     * Why a sealed epoch's sum reaching zero means every op that entered it has exited, and why the
     * last exit sees it (every access below is a volatile read, a volatile write or an atomic add):
     *   enter:  cell += 1; read sealed; if sealed: cell -= 1 (backs out, as an exit) and try the next epoch
     *   exit:   cell -= 1; read sealed; if sealed: sum the cells; at zero, finish (once, by CAS)
     *   seal:   sealed = true; sum the cells; at zero, finish
     *   - An entry that read sealed == false made its +1 before the seal, so every sum taken after reading
     *     sealed == true sees it: a sum never misses a live op's +1, and a -1 it sees is of an op that
     *     exited, or the back-out of an entry in the same cell after its +1 (a thread's cell is fixed,
     *     and one cell's values are seen in order). So a sum is never below the true count.
     *   - Of two exits (or a seal and an exit), each writes before it reads the other's cell; by the
     *     total order of these accesses at least one of them sees both writes (Dekker), so the sum taken
     *     after the last -1 is exact, and it is zero.
     */
    private static final int CELLS = cells();
    private static final int PAD = 8; // longs per cell: 64 bytes, one cache line
    private static final AtomicInteger NEXT_CELL = new AtomicInteger();
    /** Each thread's cell, handed out in turn, so that the first {@link #CELLS} threads share none. */
    private static final ThreadLocal<Integer> CELL =
            ThreadLocal.withInitial(() -> (NEXT_CELL.getAndIncrement() & (CELLS - 1)) * PAD);

    private static int cells() {
        int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors())) << 2;
        return Math.max(16, Math.min(n, 64)); // a power of two
    }

    /** One epoch: a striped count of unfinished ops and a sealed flag. */
    static final class Epoch implements OpAccount {
        private static final VarHandle DONE;

        static {
            try {
                DONE = MethodHandles.lookup().findVarHandle(Epoch.class, "done", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final AtomicLongArray cells = new AtomicLongArray(CELLS * PAD);
        private volatile Epoch older;
        private volatile boolean sealed;
        private volatile boolean done; // set once, by CAS (DONE)
        private List<Runnable> onFinish; // guarded by this; null when none

        Epoch(Epoch older) {
            this.older = older;
        }

        boolean tryEnter() {
            int cell = CELL.get();
            cells.getAndAdd(cell, 1);
            if (!sealed) {
                return true;
            }
            cells.getAndAdd(cell, -1); // sealed meanwhile: back out, as an exit would
            finishIfEmpty();
            return false;
        }

        @Override
        public void exit() {
            cells.getAndAdd(CELL.get(), -1);
            if (sealed) {
                finishIfEmpty();
            }
        }

        void seal() {
            sealed = true;
            finishIfEmpty();
        }

        private long sum() {
            long n = 0;
            for (int i = 0; i < CELLS * PAD; i += PAD) {
                n += cells.get(i);
            }
            return n;
        }

        private void finishIfEmpty() {
            if (!done && sum() == 0 && DONE.compareAndSet(this, false, true)) {
                finish();
            }
        }

        private void finish() {
            List<Runnable> callbacks;
            synchronized (this) {
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

        /** Ops entered and not exited; approximate while ops enter and exit (never negative). */
        long pending() {
            return Math.max(0, sum());
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
