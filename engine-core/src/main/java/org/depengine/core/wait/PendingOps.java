package org.depengine.core.wait;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.depengine.core.exec.EngineThread;
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
public final class PendingOps {
    /*
     * Implementation overview.
     *
     * Entries are counted on one counter per epoch, which also hands out the op ids: a push's one
     * atomic add both counts its op (or a replay's ops) and numbers it, so ids increase in push order.
     * Exits are striped: every thread subtracts from one cell (fixed for the thread's life), each cell on
     * its own cache line, so that workers finishing ops do not bounce one line between the cores. A cell
     * goes negative (it holds exits only). Engine threads take the upper half of the cells in turn
     * ({@link EngineThread#countCell}); any other thread (a pusher running ops inline) the lower half, by
     * its thread id: a field read, with no thread-local lookup and no identity hash (which leaves compiled
     * code for a call into the VM once the thread's monitor is inflated: 13 % of the samples in one of two
     * profiles of a naive replay), and a pusher never shares a cell with a worker. Up to HALF threads
     * made one after another take different cells. Two threads sharing a cell is only slower: every
     * update is atomic.
     *
     * Sealing freezes the entries, then the cells, and moves the count to one central counter, so that
     * the exits after a seal cost one atomic add each too, with nothing to sum:
     *   seal:   E = getAndSet(entered, FROZEN); the next epoch's ids start after E; for each cell:
     *           X += getAndSet(cell, FROZEN).  Then remaining.addAndGet(E + X - GUARD).
     *   enter:  v = entered.getAndAdd(n) (n = 1, or a replay's ops); the ids are first + v ...; if v is
     *           frozen the epoch is sealed: try the next one (the +n on a frozen counter is ignored).
     *   exit:   v = cell.getAndAdd(-1); if v is frozen: remaining.decrementAndGet().
     *   The epoch finishes when an update takes remaining to zero (exactly one does: see below).
     * Every entry before the freeze is in E, every later one retries in the next epoch; every exit on a
     * cell before its freeze is in X (the RMWs on one cell are totally ordered), every one after it is
     * counted in remaining. An op exits only after it entered, so E + X >= 0. remaining starts at GUARD,
     * far above any number of ops, so exits counted before the sealer's add cannot reach zero; after the
     * add it equals the number of ops not yet exited, which only falls. So zero is reached once, when the
     * last op has exited (or at the add itself, if none is left).
     */
    private static final int CELLS = cells();
    private static final int PAD = 8; // longs per cell: 64 bytes, one cache line
    private static final int FIRST = PAD; // cell 0 starts one line in, away from the array's header
    private static final long FROZEN = Long.MIN_VALUE / 2; // a frozen cell holds about this
    private static final long GUARD = Long.MAX_VALUE / 2;  // remaining's start, until the sealer's add
    private static final int HALF = CELLS / 2;

    private static int cells() {
        int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors())) << 2;
        return Math.max(16, Math.min(n, 64)); // a power of two
    }

    /** The calling thread's cell (an index into the cells array). */
    private static int cell() {
        Thread t = Thread.currentThread();
        int c = t instanceof EngineThread ? HALF + (((EngineThread) t).countCell & (HALF - 1))
                : ((int) t.getId() & (HALF - 1)); // getId, not threadId (JDK 19+): release 17
        return FIRST + c * PAD;
    }

    private static boolean frozen(long cellValue) {
        return cellValue < FROZEN / 2;
    }

    /** One epoch: a count of unfinished ops (entries central, exits striped), frozen into one counter when sealed. */
    public static final class Epoch implements OpAccount {
        // One line of padding before the first cell and after the last: the header and the neighbouring
        // objects are read by every thread, the cells written by one each.
        private final AtomicLongArray cells = new AtomicLongArray(FIRST + CELLS * PAD + PAD);
        // The entry counter at [PAD], a cache line away from anything else: every push adds to it.
        private final AtomicLongArray entered = new AtomicLongArray(2 * PAD + 1);
        private final AtomicLong remaining = new AtomicLong(GUARD);
        private final long firstId;
        private volatile Epoch older;
        private volatile boolean done;
        private List<Runnable> onFinish; // guarded by this; null when none

        Epoch(Epoch older, long firstId) {
            this.older = older;
            this.firstId = firstId;
        }

        /**
         * Enters {@code n} ops; returns the id of the first (the others follow it), or -1, entering
         * nothing, if the epoch is sealed (enter the current one).
         */
        public long tryEnter(int n) {
            long v = entered.getAndAdd(PAD, n);
            return frozen(v) ? -1 : firstId + v;
        }

        @Override
        public void exit() {
            if (frozen(cells.getAndAdd(cell(), -1)) && remaining.decrementAndGet() == 0) {
                finish();
            }
        }

        /**
         * All {@code n} at once: the overview's argument holds for an exit of {@code n}, one update of a
         * cell, or of the central count once the cell is frozen.
         */
        @Override
        public OpAccount exiting(int n) {
            if (n == 1) {
                return this;
            }
            return () -> {
                if (frozen(cells.getAndAdd(cell(), -n)) && remaining.addAndGet(-n) == 0) {
                    finish();
                }
            };
        }

        /** Closes the epoch to new ops, first step: the entries; returns how many there were. Once, by {@link PendingOps#seal()}. */
        long freezeEntries() {
            return entered.getAndSet(PAD, FROZEN);
        }

        /** Second step, with the number of entries {@code freezeEntries} returned: moves the count to one counter. */
        void freezeExits(long entries) {
            long count = entries;
            for (int i = FIRST; i < FIRST + CELLS * PAD; i += PAD) {
                count += cells.getAndSet(i, FROZEN);
            }
            if (remaining.addAndGet(count - GUARD) == 0) {
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

        /** Ops entered and not exited; approximate while ops enter and exit (never negative). */
        long pending() {
            long r = remaining.get();
            if (r < GUARD / 2) {
                return Math.max(0, r); // sealed: the central count
            }
            long in = entered.get(PAD);
            long n = frozen(in) ? 0 : in;
            for (int i = FIRST; i < FIRST + CELLS * PAD; i += PAD) {
                long v = cells.get(i);
                n += frozen(v) ? 0 : v;
            }
            return Math.max(0, n);
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

    private volatile Epoch current = new Epoch(null, 1);

    /** The epoch new ops enter ({@link Epoch#tryEnter}; retry on this when it returns -1). */
    public Epoch current() {
        return current;
    }

    /** Counts a new op; returns the epoch it must {@link Epoch#exit()} when finished (its id is dropped). */
    public Epoch enter() {
        return enter(1);
    }

    /** Counts {@code n} new ops at once; each must {@link Epoch#exit()} the epoch returned when finished. */
    public Epoch enter(int n) {
        while (true) {
            Epoch e = current;
            if (e.tryEnter(n) >= 0) {
                return e;
            }
            Thread.onSpinWait(); // a seal is replacing the epoch right now
        }
    }

    /** Seals the current epoch and opens a new one; returns the sealed epoch. */
    public synchronized Epoch seal() {
        Epoch old = current;
        long entries = old.freezeEntries(); // pushes spin on the frozen epoch until the next is current
        current = new Epoch(old, old.firstId + entries);
        old.freezeExits(entries);
        pruneFinished(old);
        return old;
    }

    /** The op ids handed out so far (approximate while pushes run). */
    public long idsHandedOut() {
        while (true) {
            Epoch e = current;
            long in = e.entered.get(PAD);
            if (!frozen(in)) {
                return e.firstId - 1 + in;
            }
            Thread.onSpinWait(); // a seal is replacing the epoch right now
        }
    }

    /** Ops not yet finished, over all epochs (approximate while pushes run). */
    public long pending() {
        long n = 0;
        for (Epoch e = current; e != null; e = e.older) {
            n += e.pending();
        }
        return n;
    }

    /** Waits until {@code sealed} and every older epoch are finished; false on timeout. */
    public static boolean await(Epoch sealed, long deadlineNanos) throws InterruptedException {
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
    public static void whenFinished(Epoch sealed, Runnable r) {
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
