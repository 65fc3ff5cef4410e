package org.depengine.profiler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A fixed, lock-free table of the ready/started/launched times of ops in flight, so the thread
 * that finishes an op can put durations into its JFR event even when other threads saw its earlier
 * events. Used only while the JFR event is enabled. Not part of the API.
 */
/*
 * An entry is [tag = op id + 1, ready, started, launched], indexed by a hash of the op id. A writer
 * whose op does not own the entry claims it (fields reset, then the tag published). Two colliding ops
 * in flight at once (more in flight than the table has entries) can lose or, in a narrow race, mix
 * times; the reader checks the tag before and after, and an unknown time reads as -1. That is the
 * price of never locking: the JFR durations are best effort under such load, the trace is not
 * affected (it is joined from the rings).
 */
final class InFlight {
    static final int READY = 1;
    static final int STARTED = 2;
    static final int LAUNCHED = 3;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] table;
    private final int mask;

    InFlight(int entries) {
        table = new long[entries * 4];
        mask = entries - 1;
    }

    private int base(long opId) {
        long h = opId * 0x9E3779B97F4A7C15L;
        return (int) ((h >>> 32) & mask) * 4;
    }

    void set(long opId, int field, long nanos) {
        int b = base(opId);
        long tag = opId + 1;
        if ((long) LONGS.getAcquire(table, b) != tag) {
            LONGS.setOpaque(table, b + READY, -1L);
            LONGS.setOpaque(table, b + STARTED, -1L);
            LONGS.setOpaque(table, b + LAUNCHED, -1L);
            LONGS.setRelease(table, b, tag);
        }
        LONGS.setRelease(table, b + field, nanos);
    }

    /** The three times of the op (ready, started, launched; -1 where unknown) into out[0..2]. */
    void get(long opId, long[] out) {
        int b = base(opId);
        long tag = opId + 1;
        long t1 = (long) LONGS.getAcquire(table, b);
        long r = (long) LONGS.getAcquire(table, b + READY);
        long s = (long) LONGS.getAcquire(table, b + STARTED);
        long l = (long) LONGS.getAcquire(table, b + LAUNCHED);
        long t2 = (long) LONGS.getAcquire(table, b);
        if (t1 != tag || t2 != tag) {
            out[0] = out[1] = out[2] = -1;
            return;
        }
        out[0] = r;
        out[1] = s;
        out[2] = l;
    }
}
