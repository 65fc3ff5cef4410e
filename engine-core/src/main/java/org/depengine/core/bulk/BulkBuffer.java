package org.depengine.core.bulk;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import org.depengine.api.Bulk;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.core.tracker.OpDef;

/**
 * One thread's open bulk: the members held since the last flush, all of one context, property and
 * priority. The owning thread appends; any thread may flush (see {@link Bulks}). Appends and flushes
 * hold the buffer's lock, and a flush keeps it until the merged op is registered (not until it runs), so
 * that the owner's next merged op, and any push that found these members held, is registered after it.
 */
final class BulkBuffer implements Bulk {
    private final Bulks registry;
    private final Thread owner;
    private final int size;
    private final ReentrantLock lock = new ReentrantLock();
    private OpDef[] members;   // guarded by lock
    private int count;         // guarded by lock; the owner also reads it without (it alone adds members)
    private Context ctx;       // guarded by lock: of the held members; only the owner writes it
    private Context checked;   // owner only: the last context the host accepted for a member
    private FnProperty prop;   // guarded by lock
    private int priority;      // guarded by lock
    private boolean closed;    // owner thread only

    BulkBuffer(Bulks registry, Thread owner, int size) {
        this.registry = registry;
        this.owner = owner;
        this.size = size;
        this.members = new OpDef[Math.min(size, 64)];
    }

    @Override
    public int size() {
        return size;
    }

    Thread owner() {
        return owner;
    }

    /**
     * Whether members are held. Owner thread only, without the lock, after reading the registry's
     * holding count: only the owner adds members, and a flush by another thread zeroes the count before
     * it drops the holding count, so a read that saw that drop also sees the zero; a read that did not
     * may see members that are gone, while the holding count still counts them (see Bulks.offer).
     */
    boolean isEmpty() {
        return count == 0;
    }

    /**
     * Whether {@code c} is the context the host last accepted for one of this bulk's members (owner
     * thread only): a bulk's members usually share one context object, which then is checked once.
     */
    boolean accepted(Context c) {
        return c == checked;
    }

    /** The host accepted {@code c} for a member (owner thread only). */
    void accept(Context c) {
        checked = c;
    }

    /**
     * Holds a member (the caller checked it may be merged); flushes first if it does not fit with the
     * held ones, and after, if the bulk is full.
     *
     * @return false if the registry is shut (the engine is closing): the caller pushes it alone
     */
    boolean append(OpDef def, Context c, int prio) {
        lock.lock();
        if (registry.isShut()) {
            lock.unlock();
            return false;
        }
        if (count > 0 && (def.prop() != prop || prio != priority || (c != ctx && !c.equals(ctx)))) {
            flushAndUnlock();
            lock.lock();
        }
        if (count == members.length) {
            members = Arrays.copyOf(members, Math.min(size, members.length * 2));
        }
        members[count++] = def;
        if (count == 1) {
            ctx = c;
            prop = def.prop();
            priority = prio;
            registry.held(1);
        }
        if (count == size) {
            flushAndUnlock();
        } else {
            lock.unlock();
        }
        return true;
    }

    /** Pushes the held members as one op, if any. */
    void flushHeld() {
        lock.lock();
        if (count > 0) {
            flushAndUnlock();
        } else {
            lock.unlock();
        }
    }

    /**
     * Pushes the held members as one op, releasing the lock (held once by the caller) as soon as the op
     * is registered: before it runs, which the naive engine does inside the push, so that no user op
     * runs under the lock. The members are gone from the buffer even if the push throws.
     */
    private void flushAndUnlock() {
        OpDef[] taken;
        if (count == members.length) {
            taken = members; // a full buffer is handed over whole: cheaper than a copy and a clear
            members = new OpDef[members.length];
        } else {
            taken = Arrays.copyOf(members, count);
            Arrays.fill(members, 0, count, null);
        }
        count = 0;
        boolean[] released = {false};
        Runnable registered = () -> {
            released[0] = true;
            registry.held(-1);
            lock.unlock();
        };
        try {
            if (taken.length == 1) {
                registry.host().submitMerged(taken[0], ctx, priority, registered); // nothing to merge
            } else {
                registry.host().submitMerged(merge(taken), ctx, priority, registered);
            }
        } finally {
            if (!released[0]) {
                registry.held(-1); // refused before registration: nothing is held any more
                lock.unlock();
            }
        }
    }

    /** The merged op: unions of the members' variables (a variable written by any member is a write). */
    private OpDef merge(OpDef[] taken) {
        MergedVars v = MergedVars.of(taken);
        MergedBody body = new MergedBody(registry.host(), taken, v.extraWriteVars(), v.extraWrites());
        String name = "bulk[" + taken.length + "]: " + MergedBody.label(taken[0]) + ".." + MergedBody.label(taken[taken.length - 1]);
        return new OpDef(registry.owner(), body, v.reads(), v.writes(), FnProperty.NO_SKIP, name, OpDef.Kind.USER);
    }

    @Override
    public void flush() {
        checkOwner("flush()");
        if (closed) {
            throw new IllegalStateException("this bulk is closed; open a new one with engine.bulk(size)");
        }
        flushHeld();
    }

    @Override
    public void close() {
        checkOwner("close()");
        if (closed) {
            return;
        }
        closed = true;
        try {
            flushHeld();
        } finally {
            registry.closed(this); // after the flush: a push of another thread meanwhile still finds the members
        }
    }

    private void checkOwner(String call) {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("Bulk." + call + " called on thread " + Thread.currentThread().getName()
                    + ", but the bulk belongs to thread " + owner.getName()
                    + "; a bulk is used and closed by the thread that opened it");
        }
    }

    @Override
    public String toString() {
        return "Bulk[size " + size + ", thread " + owner.getName() + (closed ? ", closed" : "") + "]";
    }
}
