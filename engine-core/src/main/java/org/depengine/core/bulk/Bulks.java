package org.depengine.core.bulk;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Bulk;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.core.tracker.OpDef;

/**
 * An engine's open bulks, and the rule that keeps pushes in call order across threads: before any
 * push or wait goes ahead, every member another thread holds is pushed (its {@code pushSync} has
 * returned, so it was pushed first). {@link #offer} merges a thread's own synchronous ops.
 *
 * <p>Cost without bulks: one volatile read per push. Thread-safety: every method may be called from any
 * thread; a buffer's owner appends, anyone flushes, under the buffer's lock, held until the merged op
 * is registered and never while an op runs.
 */
public final class Bulks {
    private final Object owner;
    private final BulkHost host;
    private final ThreadLocal<BulkBuffer> mine = new ThreadLocal<>();
    private final CopyOnWriteArrayList<BulkBuffer> open = new CopyOnWriteArrayList<>();
    /** Buffers holding members not yet registered; zero on the hot path without bulks. */
    private final AtomicInteger holding = new AtomicInteger();
    private volatile boolean shut;

    /**
     * @param owner the engine (the owner of the merged ops' definitions)
     * @param host the engine's dispatch core
     */
    public Bulks(Object owner, BulkHost host) {
        this.owner = owner;
        this.host = host;
    }

    Object owner() {
        return owner;
    }

    BulkHost host() {
        return host;
    }

    boolean isShut() {
        return shut;
    }

    void held(int delta) {
        holding.addAndGet(delta);
    }

    /**
     * Opens a bulk on the calling thread.
     *
     * @throws IllegalArgumentException if {@code size} &lt; 1
     * @throws IllegalStateException if the thread has one open already, or the engine is closing
     */
    public Bulk open(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("bulk size " + size + " is less than 1; give the most ops to merge "
                    + "into one, e.g. engine.bulk(16) (1 merges nothing)");
        }
        if (shut) {
            throw new IllegalStateException("the engine is closed; bulk(" + size + ") was not opened");
        }
        BulkBuffer b = mine.get();
        if (b != null) {
            throw new IllegalStateException("thread " + Thread.currentThread().getName() + " already has " + b
                    + " open on this engine; bulks do not nest: close it first");
        }
        b = new BulkBuffer(this, Thread.currentThread(), size);
        mine.set(b);
        open.add(b);
        return b;
    }

    /** Whether the calling thread has a bulk open on this engine. */
    public boolean ownsOpenBulk() {
        return !open.isEmpty() && mine.get() != null;
    }

    /** The bulk was closed by its owner. */
    void closed(BulkBuffer b) {
        mine.remove();
        open.remove(b);
    }

    /**
     * Holds a validated synchronous op in the calling thread's open bulk, if it has one and the op can
     * be merged; otherwise pushes every held member first, so that the caller's push comes after them.
     *
     * @return true if the op was taken (the caller pushes nothing), false if the caller pushes it
     */
    public boolean offer(OpDef def, Context ctx, int priority) {
        if (open.isEmpty()) {
            // No bulk open: nothing is held either, since a bulk leaves the open list only after its
            // close has pushed (registered) its members. One volatile read on the path without bulks.
            return false;
        }
        BulkBuffer b = mine.get();
        if (b == null || !def.isSync() || def.kind() != OpDef.Kind.USER
                || (def.prop() != FnProperty.NORMAL && def.prop() != FnProperty.NO_SKIP)) {
            flushAll();
            return false;
        }
        if (!b.accepted(ctx)) {
            host.checkContext(ctx); // throws for a context the engine cannot run
            b.accept(ctx);
        }
        // holding first, then our own count (BulkBuffer.isEmpty): a stale count can only cause a needless
        // flushOthers, never skip another thread's held members
        if (holding.get() > (b.isEmpty() ? 0 : 1)) {
            flushOthers(b);
        }
        return b.append(def, ctx, priority);
    }

    /** Pushes every held member, of every thread: before any push that is not merged, and any wait. */
    public void flushAll() {
        if (holding.get() == 0) {
            return;
        }
        for (BulkBuffer b : open) {
            b.flushHeld();
        }
    }

    private void flushOthers(BulkBuffer self) {
        for (BulkBuffer b : open) {
            if (b != self) {
                b.flushHeld();
            }
        }
    }

    /**
     * The engine is closing: no member is taken from now on, and every held member is pushed (before
     * the engine refuses pushes).
     */
    public void shut() {
        shut = true;
        for (BulkBuffer b : open) {
            b.flushHeld();
        }
    }
}
