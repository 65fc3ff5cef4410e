package org.depengine.core.exec;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.EngineMetrics;

/**
 * The sampled queue-wait and run times of one group's ops ({@link EngineMetrics.Group#queueWait()},
 * {@link EngineMetrics.Group#runTime()}). An op is timed if a hash of its id falls in one bucket of
 * {@code interval}: the check costs a multiply and a compare, and ops pushed again every step (a replay,
 * a loop) are timed by turns, not always the same ones.
 *
 * <p>Thread-safe. The stamp of a timed op handed to the group is kept, by op id, in a small table until
 * the op starts; two timed ops that hash to one slot at once lose the first one's queue wait (its run time
 * is still taken), which biases nothing but the count.
 */
public final class OpTimings {
    private static final long PHI = 0x9E3779B97F4A7C15L; // Fibonacci hashing: consecutive ids spread
    private static final int SLOTS = 64;                  // a power of two: the top 6 bits of the hash
    private static final int SAMPLE_SHIFT = 40;           // the bits that decide sampling, below the slot's
    /** The largest sampling interval accepted (its bits stay below the slot index's). */
    public static final int MAX_INTERVAL = 1 << 16;

    private record Stamp(long id, long nanos) {
    }

    private final boolean on;
    private final int mask;
    private final AtomicReferenceArray<Stamp> stamps;
    private final Sum runTime = new Sum();
    private final Sum queueWait = new Sum();

    /**
     * @param interval 0 (nothing timed) or a power of two up to {@link #MAX_INTERVAL}: one op in that many is timed
     */
    public OpTimings(int interval) {
        checkInterval(interval);
        this.on = interval > 0;
        this.mask = Math.max(0, interval - 1);
        this.stamps = on ? new AtomicReferenceArray<>(SLOTS) : null;
    }

    /**
     * Checks a sampling interval.
     *
     * @throws IllegalArgumentException unless it is 0 or a power of two up to {@link #MAX_INTERVAL}
     */
    public static int checkInterval(int interval) {
        if (interval < 0 || interval > MAX_INTERVAL || Integer.bitCount(interval) > 1) {
            throw new IllegalArgumentException("a timing sample interval is 0 or a power of two up to " + MAX_INTERVAL
                    + ": " + interval);
        }
        return interval;
    }

    /** Whether the op of this id is timed. */
    public boolean timed(long id) {
        return on && ((int) ((id * PHI) >>> SAMPLE_SHIFT) & mask) == 0;
    }

    /** A timed op was handed to the group now; its queue wait starts. */
    public void handed(long id) {
        stamps.set(slot(id), new Stamp(id, System.nanoTime()));
    }

    /**
     * A timed op starts to run now ({@code nowNanos}): its queue wait ends, if its hand-off was stamped.
     */
    public void started(long id, long nowNanos) {
        int slot = slot(id);
        Stamp s = stamps.get(slot);
        if (s != null && s.id == id) {
            queueWait.add(nowNanos - s.nanos);
            stamps.compareAndSet(slot, s, null);
        }
    }

    /**
     * A timed op, standing for {@code ops} ops ({@code OpDef.ops()}: a replay run as one op, timed as
     * a whole by its first id), ran for {@code nanos}: that many run times, {@code nanos} in all.
     */
    public void ran(long nanos, int ops) {
        runTime.add(nanos, ops);
    }

    /** The run times taken. */
    public EngineMetrics.Timing runTime() {
        return runTime;
    }

    /** The queue waits taken. */
    public EngineMetrics.Timing queueWait() {
        return queueWait;
    }

    private static int slot(long id) {
        return (int) ((id * PHI) >>> (64 - Integer.numberOfTrailingZeros(SLOTS)));
    }

    /** A count and total, added to by several threads (one op in the interval): striped, never contended. */
    private static final class Sum implements EngineMetrics.Timing {
        private final LongAdder count = new LongAdder();
        private final LongAdder nanos = new LongAdder();

        void add(long n) {
            add(n, 1);
        }

        void add(long n, int times) {
            nanos.add(Math.max(0, n));
            count.add(times);
        }

        @Override
        public long count() {
            return count.sum();
        }

        @Override
        public long totalNanos() {
            return nanos.sum();
        }
    }
}
