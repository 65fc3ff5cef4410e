package org.depengine.profiler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One recording thread's ring of fixed-size records: a single writer (its thread), any number of
 * readers (dumps). Not part of the API.
 */
/*
 * Implementation overview
 *
 * The ring is a long[] of capacity * SLOT longs; record i lives in slot (i & mask). A slot is
 * [seq, w1, w2, w3]: seq is i + 1 once record i is complete, IN_PROGRESS while it is being written.
 * The writer is the owning thread only, so it needs no CAS: it marks the slot in progress (opaque
 * store + store-store fence, so the mark is visible before any payload word), writes the payload
 * with plain stores, then publishes seq = i + 1 with a release store. When the ring is full the
 * writer simply laps it: the oldest records are overwritten (a flight recorder keeps the latest
 * window, which is what a long-running process with periodic dumps needs) and the overwritten
 * count is the number of dropped records.
 *
 * A group of records that belong together (FINISHED + INFO + VARs) is written before `head` is
 * advanced once with a release store, so a reader that reads `head` first never sees half a group
 * except where the writer lapped it meanwhile; every record is validated on its own with the
 * seqlock rule (seq == i + 1 before and after reading the payload), so a reader never accepts a
 * torn or recycled record. Readers copy what they accept; they never block the writer.
 */
final class Ring {
    /** longs per record: seq + three payload words. */
    static final int SLOT = 4;
    private static final long IN_PROGRESS = -1L;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(Ring.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int index;
    final Session session;
    final WeakReference<Thread> thread;
    final String threadName;
    private final long[] slots;
    private final int mask;
    private final int capacity;

    /** Records started so far (published with release); only the owner writes it. */
    @SuppressWarnings("unused") // accessed through HEAD
    private volatile long head;
    /** The writer's own next index, ahead of head while a group is being written. */
    private long next;

    /** One-entry caches owned by the writer: its worker's stream and context rarely change. */
    Object lastStream;
    int lastStreamId;
    Object lastContext;
    int lastContextId;

    Ring(int index, Session session, Thread owner, int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two: " + capacity);
        }
        this.index = index;
        this.session = session;
        this.thread = new WeakReference<>(owner);
        this.threadName = owner.getName();
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.slots = new long[capacity * SLOT];
    }

    int capacity() {
        return capacity;
    }

    /** Appends one record; the owner must call {@link #publish()} after the group. Owner thread only. */
    void put(long w1, long w2, long w3) {
        long i = next++;
        int base = (int) (i & mask) * SLOT;
        LONGS.setOpaque(slots, base, IN_PROGRESS);
        VarHandle.storeStoreFence(); // the mark must be seen before any payload store
        slots[base + 1] = w1;
        slots[base + 2] = w2;
        slots[base + 3] = w3;
        LONGS.setRelease(slots, base, i + 1);
    }

    /** Makes every record put so far visible to readers as one step. Owner thread only. */
    void publish() {
        HEAD.setRelease(this, next);
    }

    /** Records written so far (published). */
    long written() {
        return (long) HEAD.getAcquire(this);
    }

    /** Records lost to overwriting so far. */
    long dropped() {
        return Math.max(0, written() - capacity);
    }

    /**
     * Copies the records still held into {@code out} (3 longs each, oldest first) and returns how many
     * were copied; records the writer recycled while we read are left out. Any thread.
     */
    int snapshot(long[] out, long[] indexes) {
        long h = written();
        long from = Math.max(0, h - capacity);
        int n = 0;
        for (long i = from; i < h; i++) {
            int base = (int) (i & mask) * SLOT;
            long s1 = (long) LONGS.getAcquire(slots, base);
            if (s1 != i + 1) {
                continue; // already recycled by a writer that lapped us
            }
            long w1 = (long) LONGS.getOpaque(slots, base + 1);
            long w2 = (long) LONGS.getOpaque(slots, base + 2);
            long w3 = (long) LONGS.getOpaque(slots, base + 3);
            VarHandle.loadLoadFence(); // payload reads must not move below the second seq read
            long s2 = (long) LONGS.getOpaque(slots, base);
            if (s2 != s1) {
                continue;
            }
            out[n * 3] = w1;
            out[n * 3 + 1] = w2;
            out[n * 3 + 2] = w3;
            indexes[n] = i;
            n++;
        }
        return n;
    }

    /** The owning thread's current name if it is alive, else the name it had when the ring was made. */
    String displayName() {
        Thread t = thread.get();
        return t != null ? t.getName() : threadName;
    }
}
