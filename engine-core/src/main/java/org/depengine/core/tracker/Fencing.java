package org.depengine.core.tracker;

import java.util.ArrayList;
import java.util.List;
import org.depengine.api.device.Event;

/**
 * An op's lists for release at launch (see {@link OpBlock}, whose state word holds the flags and whose
 * overview has the one transition table), allocated only for an op that is released at launch or is
 * released behind one that was; every other op carries a null reference instead.
 *
 * <p>Two roles, either or both:
 * <ul>
 *   <li><b>fence</b>: the op released its variables at launch ({@link OpBlock#releaseAtLaunch}) and its
 *   device work may still run; it keeps the {@linkplain #doneEvent() event} that marks the end of that
 *   work and the ops deferred on the host until it completes ({@link #deferUntilDeviceDone});</li>
 *   <li><b>fenced</b>: the op was released behind fences; it keeps them until the dispatcher decides,
 *   once, how it waits for each ({@link OpBlock#deferBehindFences}), and then the ones it waits for on
 *   the device ({@link #takeDeviceFences}).</li>
 * </ul>
 * Thread-safety as annotated per member: the two lists written by other threads are guarded by this
 * object's monitor; the dispatcher's list is touched only by the thread that dispatches the op.
 */
public final class Fencing {
    private final OpBlock op;

    // Fence role. The event is written by the launching thread before it releases the variables, so an
    // op released through them sees it (the variables' locks and the wait counter order the accesses).
    private Event doneEvent;
    private Object doneWaiters;          // guarded by this: ops deferred until done, one OpBlock or an ArrayList

    // Fenced role.
    private Object fences;               // guarded by this: fences released behind, one OpBlock or an ArrayList
    private OpBlock[] deviceFences;      // dispatcher only

    Fencing(OpBlock op) {
        this.op = op;
    }

    // ---- fence role -------------------------------------------------------------------------------

    void setDoneEvent(Event event) {
        this.doneEvent = event;
    }

    /** The event marking the end of the op's device work, or null if its device cannot wait on the device. */
    public Event doneEvent() {
        return doneEvent;
    }

    /**
     * Defers {@code waiter} until this op (a fence) completes: its wait counter goes up by one now and
     * down again (dispatching it at zero) at the fence's completion.
     *
     * @return false, changing nothing, if the fence completed already (DEVICE_DONE)
     */
    boolean deferUntilDeviceDone(OpBlock waiter) {
        synchronized (this) {
            if (op.isDeviceDone()) {
                return false;
            }
            waiter.holdBack();
            doneWaiters = add(doneWaiters, waiter, false);
        }
        return true;
    }

    /** The ops deferred on the host until this op's device work is done (a copy, for diagnostics). */
    public synchronized List<OpBlock> deferred() {
        return copy(doneWaiters);
    }

    /**
     * The fence completed (its late failure, if any, is on its writes): sets DEVICE_DONE, lets the ops
     * deferred behind it go, and makes its variables forget it. On the completing thread, once.
     */
    void deviceDone() {
        Object deferred;
        synchronized (this) { // see deferUntilDeviceDone: a waiter is either taken here or sees the flag
            op.markDeviceDone();
            deferred = doneWaiters;
            doneWaiters = null;
        }
        for (Var v : op.def().reads()) {
            v.forgetFence(op);
        }
        for (Var v : op.def().writes()) {
            v.forgetFence(op);
        }
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

    /** Records that the op was released behind {@code fence}. Any thread, before it lets the op go. */
    synchronized void addFence(OpBlock fence) {
        fences = add(fences, fence, true);
    }

    /** Whether fences are waiting for the dispatcher's decision. */
    boolean hasFences() {
        // A plain read suffices: fences are added before the releasing thread decrements the wait
        // counter, and the dispatcher reads after taking it to zero; it is emptied by the dispatcher.
        return fences != null;
    }

    /**
     * The fences the op was released behind, for the dispatcher to decide on ({@link OpBlock#deferBehindFences});
     * null if none. Call only after the op's wait counter reached zero: nothing adds to them any more, so
     * the first call takes them all and a later one (a deferred op dispatched again) none.
     */
    OpBlock[] takeFences() {
        Object f;
        synchronized (this) {
            f = fences;
            fences = null;
        }
        if (f == null) {
            return null;
        }
        if (f instanceof OpBlock) {
            return new OpBlock[] {(OpBlock) f};
        }
        @SuppressWarnings("unchecked")
        ArrayList<OpBlock> list = (ArrayList<OpBlock>) f;
        return list.toArray(new OpBlock[0]);
    }

    /** Keeps the fences the op must wait for on the device before its work starts. */
    void keepDeviceFences(OpBlock[] kept) {
        this.deviceFences = kept;
    }

    /** The fences to wait for on the device, once: a running op keeps no fence alive. Null if none. */
    public OpBlock[] takeDeviceFences() {
        OpBlock[] f = deviceFences;
        deviceFences = null;
        return f;
    }

    /** One op, or an ArrayList of them, as a list (a copy). */
    private static List<OpBlock> copy(Object ops) {
        if (ops == null) {
            return List.of();
        }
        if (ops instanceof OpBlock) {
            return List.of((OpBlock) ops);
        }
        @SuppressWarnings("unchecked")
        ArrayList<OpBlock> list = (ArrayList<OpBlock>) ops;
        return List.copyOf(list);
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
