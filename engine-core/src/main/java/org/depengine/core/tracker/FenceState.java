package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.device.Event;

/**
 * The fourth part of an op ({@link OpBlock}), for release at launch only: allocated for an op that is
 * released at launch or released behind one that was; every other op (every op of an engine that does
 * not release at launch, every CPU op) carries null. Two roles, either or both:
 * <ul>
 *   <li><b>Fence.</b> The op released its variables when its device work was enqueued
 *   ({@link OpBlock#releaseAtLaunch}) and stays a fence until its completion: its stage goes
 *   {@code NONE -> FENCE -> DONE} ({@link OpTransition}'s FENCE rows). It keeps the
 *   {@linkplain #doneEvent() event} that marks the end of that work and the ops deferred on the host
 *   until it is done.</li>
 *   <li><b>Fenced.</b> The op was released behind fences; it keeps them until its dispatcher decides,
 *   once, how it waits for each ({@link #deferBehindFences}): on the device (kept for the runner,
 *   {@link #takeDeviceFences}), or on the host, held back by a count of its own until every fence it
 *   waits for is done, then dispatched again through the host.</li>
 * </ul>
 * The variables' side (which fences a variable passes on) is {@link VarFences}.
 *
 * <p>Thread-safety as annotated per member: the lists written by other threads are guarded by this
 * object's monitor; the dispatcher's list is touched only by the thread that dispatches the op.
 * Device done: the stage moves to DONE under the monitor, after the op's late failure is on its
 * writes, and {@link #deferUntilDone} checks it under the same monitor: a waiter is either among the
 * ops the completion takes, or sees DONE and is not deferred; a dispatcher that sees the fence done
 * ({@link #isFence} false) sees the failure too.
 */
public final class FenceState {
    static final int NONE = 0;  // not released at launch (a fenced op only, or not launched yet)
    static final int FENCE = 1; // released at launch; its device work may still run
    static final int DONE = 2;  // its completion ended the fence

    private static final VarHandle STAGE;
    private static final VarHandle HOLDS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STAGE = l.findVarHandle(FenceState.class, "stage", int.class);
            HOLDS = l.findVarHandle(FenceState.class, "holds", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final OpBlock op;
    @SuppressWarnings("unused") // accessed through STAGE
    private volatile int stage;
    @SuppressWarnings("unused") // accessed through HOLDS
    private volatile int holds;     // fenced: host-side deferrals still holding the op back (+1 while deciding)

    // Fence role. The event is written by the launching thread before it releases the variables, so an
    // op released through them sees it (the variables' locks and the latch order the accesses).
    private Event doneEvent;
    private Object doneWaiters;     // guarded by this: ops deferred until done, one OpBlock or an ArrayList

    // Fenced role.
    private Object fences;          // guarded by this: fences released behind, one OpBlock or an ArrayList
    private OpBlock[] deviceFences; // dispatcher only, then its runner

    FenceState(OpBlock op) {
        this.op = op;
    }

    // ---- fence role -------------------------------------------------------------------------------

    /** NONE to FENCE: the op's device work is enqueued and marked by {@code event} (null: none). Its runner, once. */
    void launch(Event event) {
        doneEvent = event;
        int s = (int) STAGE.get(this);
        STAGE.setRelease(this, FENCE); // the runner alone moves it now (completion comes after the launch)
        OpTransition.FENCE_LAUNCH.taken(s, FENCE);
    }

    /** Whether the op was released at launch (a fence, or one that is done). */
    boolean isLaunched() {
        return (int) STAGE.getAcquire(this) != NONE;
    }

    /** Whether the op was released at launch and its device work may still run: a fence for successors. */
    public boolean isFence() {
        return (int) STAGE.getAcquire(this) == FENCE;
    }

    /** The event marking the end of the op's device work, or null if its device cannot wait on the device. */
    public Event doneEvent() {
        return doneEvent;
    }

    /**
     * Defers {@code waiter} until this fence is done: it is held back by one more count now, released
     * at the fence's completion.
     *
     * @return false, changing nothing, if the fence is done already
     */
    boolean deferUntilDone(OpBlock waiter) {
        synchronized (this) {
            if ((int) STAGE.getAcquire(this) == DONE) {
                return false;
            }
            waiter.fence().hold(); // the waiter is fenced: its part exists
            doneWaiters = add(doneWaiters, waiter, false);
        }
        return true;
    }

    /** The ops deferred on the host until this op's device work is done (a copy, for diagnostics). */
    public synchronized List<OpBlock> deferred() {
        return copy(doneWaiters);
    }

    /**
     * FENCE to DONE: the fence completed (its late failure, if any, is on its writes). Lets the ops
     * deferred behind it go, and makes its variables forget it. On the completing thread, once.
     */
    void deviceDone() {
        Object deferred;
        synchronized (this) { // see deferUntilDone: a waiter is either taken here or sees DONE
            int s = (int) STAGE.get(this);
            STAGE.setRelease(this, DONE);
            OpTransition.FENCE_DONE.taken(s, DONE);
            deferred = doneWaiters;
            doneWaiters = null;
        }
        for (Var v : op.def().reads()) {
            v.forgetFence(op);
        }
        for (Var v : op.def().writes()) {
            v.forgetFence(op);
        }
        if (deferred instanceof OpBlock one) {
            one.fence().releaseHold();
        } else if (deferred != null) {
            @SuppressWarnings("unchecked")
            ArrayList<OpBlock> list = (ArrayList<OpBlock>) deferred;
            for (OpBlock o : list) {
                o.fence().releaseHold();
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
        // A plain read suffices: fences are added before the releasing thread lets the op go (its latch),
        // and the dispatcher reads after the latch reached zero; it is emptied by the dispatcher.
        return fences != null;
    }

    /**
     * The dispatcher's decision for an op released behind fences, once, on the thread that took its
     * latch to zero. Each fence still running is kept for a device-side wait if {@code waitOnDevice} and
     * the fence runs on the op's device and has an event; behind each other one the op is deferred on the
     * host until the fence is done (counted in {@code hostDeferrals}).
     *
     * @return true if the op was deferred: the last of those fences to complete dispatches it through the host
     */
    boolean deferBehindFences(boolean waitOnDevice, LongAdder hostDeferrals) {
        OpBlock[] taken = takeFences();
        if (taken == null) {
            return false;
        }
        HOLDS.setRelease(this, 1); // the decision's guard: no fence can dispatch the op before it is made
        int kept = 0;
        for (OpBlock f : taken) {
            FenceState fs = f.fence();
            if (!fs.isFence()) {
                continue; // done already
            }
            if (waitOnDevice && f.device() == op.device() && fs.doneEvent() != null) {
                taken[kept++] = f;
            } else if (fs.deferUntilDone(op)) {
                hostDeferrals.increment();
            }
        }
        if (kept > 0) {
            deviceFences = kept == taken.length ? taken : Arrays.copyOf(taken, kept);
        }
        return !dropHold();
    }

    private OpBlock[] takeFences() {
        Object f;
        synchronized (this) {
            f = fences;
            fences = null;
        }
        if (f == null) {
            return null;
        }
        if (f instanceof OpBlock one) {
            return new OpBlock[] {one};
        }
        @SuppressWarnings("unchecked")
        ArrayList<OpBlock> list = (ArrayList<OpBlock>) f;
        return list.toArray(new OpBlock[0]);
    }

    /** The fences to wait for on the device, once: a running op keeps no fence alive. Null if none. */
    public OpBlock[] takeDeviceFences() {
        OpBlock[] f = deviceFences;
        deviceFences = null;
        return f;
    }

    /** Whether host-side deferrals hold the op back (for diagnostics). */
    boolean isDeferred() {
        return (int) HOLDS.getAcquire(this) > 0;
    }

    private void hold() {
        HOLDS.getAndAdd(this, 1);
    }

    /** Drops one hold; true if it was the last. */
    private boolean dropHold() {
        return (int) HOLDS.getAndAdd(this, -1) == 1;
    }

    /** A fence the op was deferred behind is done: dispatches the op through the host if it was the last. */
    private void releaseHold() {
        if (dropHold()) {
            op.host.ready(op);
        }
    }

    /** One op, or an ArrayList of them, as a list (a copy). */
    private static List<OpBlock> copy(Object ops) {
        if (ops == null) {
            return List.of();
        }
        if (ops instanceof OpBlock one) {
            return List.of(one);
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
        if (one instanceof OpBlock first) {
            if (distinct && first == o) {
                return first;
            }
            ArrayList<OpBlock> list = new ArrayList<>(4);
            list.add(first);
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
