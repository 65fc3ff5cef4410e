package org.depengine.core.tracker;

import java.util.ArrayList;
import java.util.List;
import org.depengine.api.device.Event;

/**
 * An op's part in release at launch (see {@link OpBlock}), allocated only for an op that launches on a
 * device or is released behind one that did; every other op carries a null reference instead.
 *
 * <p>Two roles, either or both:
 * <ul>
 *   <li><b>fence</b>: the op released its variables at launch ({@link OpBlock#launch}) and its device
 *   work may still run; it keeps the {@linkplain #doneEvent() event} that marks the end of that work
 *   and the ops deferred on the host until it is done ({@link #deferUntilDeviceDone});</li>
 *   <li><b>fenced</b>: the op was released behind launched ops; it keeps them until the dispatcher
 *   decides, once, how it waits for each ({@link #takeFences}), and then the ones it waits for on the
 *   device ({@link #keepDeviceFences}).</li>
 * </ul>
 * Thread-safety as annotated per member: the fence lists are guarded by this object's monitor; the
 * dispatcher's fields are touched only by the thread that took the op's wait counter to zero.
 */
public final class Fencing {
    private final OpBlock op;

    // Fence role. Written by the launching thread before it releases the variables, so an op released
    // through them sees them (the variables' locks and the wait counter order the accesses).
    private volatile boolean launched;
    private Event doneEvent;
    private volatile boolean deviceDone; // written under this
    private Object doneWaiters;          // guarded by this: ops deferred until done, one OpBlock or an ArrayList

    // Fenced role.
    private Object fences;               // guarded by this: launched ops released behind, one OpBlock or an ArrayList
    private OpBlock[] deviceFences;     // dispatcher only
    private boolean gated;               // dispatcher only: the fences were taken

    Fencing(OpBlock op) {
        this.op = op;
    }

    // ---- fence role -------------------------------------------------------------------------------

    void launch(Event event) {
        this.doneEvent = event;
        this.launched = true;
    }

    boolean isLaunched() {
        return launched;
    }

    /** Whether the op is launched and its device work may still be running. */
    boolean isFence() {
        return launched && !deviceDone;
    }

    /** The event marking the end of the op's device work, or null if its device cannot wait on the device. */
    public Event doneEvent() {
        return doneEvent;
    }

    /**
     * Defers {@code waiter} until this op's device work is done: its wait counter goes up by one now and
     * down again (dispatching it at zero) when the work is done.
     *
     * @return false, changing nothing, if the device work is already done
     */
    public boolean deferUntilDeviceDone(OpBlock waiter) {
        synchronized (this) {
            if (deviceDone) {
                return false;
            }
            waiter.holdBack();
            doneWaiters = add(doneWaiters, waiter, false);
        }
        return true;
    }

    /** The ops deferred on the host until this op's device work is done (a copy, for diagnostics). */
    public synchronized List<OpBlock> deferred() {
        Object w = doneWaiters;
        if (w == null) {
            return List.of();
        }
        if (w instanceof OpBlock) {
            return List.of((OpBlock) w);
        }
        @SuppressWarnings("unchecked")
        ArrayList<OpBlock> list = (ArrayList<OpBlock>) w;
        return List.copyOf(list);
    }

    /** The device work is done: the ops deferred behind it go, and the op's variables forget it as a fence. */
    void deviceDone() {
        Object deferred = markDeviceDone();
        for (Var v : op.def().reads()) {
            v.forgetFence(op);
        }
        for (Var v : op.def().writes()) {
            v.forgetFence(op);
        }
        releaseDeferred(deferred);
    }

    /** Marks the device work done; returns the ops deferred behind it (one OpBlock, a list, or null). */
    private Object markDeviceDone() {
        synchronized (this) {
            deviceDone = true;
            Object w = doneWaiters;
            doneWaiters = null;
            return w;
        }
    }

    /** Ends the deferral of the ops {@link #markDeviceDone} returned (one OpBlock, a list, or null). */
    private static void releaseDeferred(Object deferred) {
        if (deferred instanceof OpBlock) {
            ((OpBlock) deferred).releaseDeferred();
        } else if (deferred != null) {
            @SuppressWarnings("unchecked")
            ArrayList<OpBlock> list = (ArrayList<OpBlock>) deferred;
            for (OpBlock o : list) {
                o.releaseDeferred();
            }
        }
    }

    // ---- fenced role ------------------------------------------------------------------------------

    /** Records that the op was released behind {@code fence} (a launched op). Any thread. */
    synchronized void addFence(OpBlock fence) {
        fences = add(fences, fence, true);
    }

    /** Whether fences are waiting for the dispatcher's decision. */
    boolean hasFences() {
        // A plain read suffices: fences are added before the releasing thread decrements the wait
        // counter, and the dispatcher reads after taking it to zero.
        return !gated && fences != null;
    }

    /** Whether the dispatcher took the fences (the op may since be deferred on the host). */
    boolean isGated() {
        return gated;
    }

    /**
     * The fences the op was released behind, once, for the dispatcher to decide on; null if none or
     * already taken. Call only after the op's wait counter reached zero. Arms the deferral count: the
     * op's wait counter holds a guard until {@link #dropDeferralGuard}.
     */
    public OpBlock[] takeFences() {
        if (gated) {
            return null;
        }
        Object f;
        synchronized (this) {
            f = fences;
            fences = null;
        }
        gated = true;
        if (f == null) {
            return null;
        }
        op.armDeferral();
        if (f instanceof OpBlock) {
            return new OpBlock[] {(OpBlock) f};
        }
        @SuppressWarnings("unchecked")
        ArrayList<OpBlock> list = (ArrayList<OpBlock>) f;
        return list.toArray(new OpBlock[0]);
    }

    /** Drops the deferral guard; true if nothing deferred the op (the caller dispatches it). */
    public boolean dropDeferralGuard() {
        return op.dropHold();
    }

    /** Keeps the fences the op must wait for on the device before its work starts. */
    public void keepDeviceFences(OpBlock[] kept) {
        this.deviceFences = kept;
    }

    /** The fences to wait for on the device, once: a running op keeps no fence alive. Null if none. */
    public OpBlock[] takeDeviceFences() {
        OpBlock[] f = deviceFences;
        deviceFences = null;
        return f;
    }

    /** One op, or an ArrayList of them, with {@code o} added (once, if {@code distinct}). */
    private static Object add(Object one, OpBlock o, boolean distinct) {
        if (one == null) {
            return o;
        }
        if (one instanceof OpBlock) {
            if (distinct && one == o) {
                return one;
            }
            ArrayList<OpBlock> list = new ArrayList<>(4);
            list.add((OpBlock) one);
            list.add(o);
            return list;
        }
        @SuppressWarnings("unchecked")
        ArrayList<OpBlock> list = (ArrayList<OpBlock>) one;
        if (!distinct || !list.contains(o)) {
            list.add(o);
        }
        return list;
    }
}
