package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.depengine.api.Context;
import org.depengine.api.listen.OpListener;

/**
 * The second part of an op ({@link OpBlock}): its registration on its variables and its readiness
 * latch. The latch has one meaning: how many things the op still waits for before it may be
 * dispatched, each of which lets it go once ({@link #release}):
 * <ul>
 *   <li>each registration on a variable that has not let it go yet;</li>
 *   <li>for an op of a graph's replay, each predecessor in the replay not yet completed (its
 *   {@linkplain ReplaySlot slot}'s edges);</li>
 *   <li>the push guard, dropped by the pusher after every registration of the push
 *   ({@link #dropGuard}), so that the op cannot start, on any thread, before all its dependencies are
 *   registered.</li>
 * </ul>
 * The registrations that let the op go during its own push are counted on the pusher and dropped with
 * the guard, in one update. Whoever takes the latch to zero dispatches the op: the pusher
 * ({@code dropGuard} returns true) or the releasing thread (through {@link OpHost#ready}). An op held
 * back later by the device work of an op released at launch is counted by its fence part
 * ({@link FenceState}), not here.
 *
 * <p>Registration is one step with respect to other pushes ({@link Registration}); its counterpart,
 * {@link #releaseRegistrations}, lets the variables go at the op's completion (or at its launch).
 */
abstract sealed class OpLatch extends PushedOp permits OpLife {
    private static final VarHandle WAIT;

    static {
        try {
            WAIT = MethodHandles.lookup().findVarHandle(OpLatch.class, "wait", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final OpHost host;
    @SuppressWarnings("unused") // accessed through WAIT
    private volatile int wait;
    private int waitsAtPush;    // the latch's start: registrations, predecessors in the replay, the guard
    private int registered;     // registrations made: all the op's accesses, none if cancelled, a replay's registered ones
    private int grantedAtPush;  // pusher only: registrations that let the op go during the push
    private RuntimeException cancelled; // a refused registration's exception; written before the guard drops

    OpLatch(OpDef def, OpHost host, Context ctx, int priority, boolean profiling, long id, OpListener listener,
            OpAccount account, OpDevice device) {
        super(def, ctx, priority, profiling, id, listener, account, device);
        this.host = host;
        this.waitsAtPush = def.varCount() + 1;
        WAIT.setRelease(this, waitsAtPush);
    }

    /**
     * Makes this the op of a replay's slot {@code s}: it registers only the accesses the slot registers
     * and also waits for its predecessors in the replay; an op with no registered access and some
     * predecessor has no guard ({@link ReplaySlot#guarded()}). Pusher thread, before registration.
     */
    void link(ReplaySlot s) {
        slot = s;
        waitsAtPush = s.latchStart();
        WAIT.setRelease(this, waitsAtPush);
    }

    /** A retired replay block's latch, armed again for its next push (see {@link OpBlock#reuse}). */
    void rearm() {
        registered = 0;
        grantedAtPush = 0;
        cancelled = null;
        WAIT.setRelease(this, waitsAtPush);
    }

    /**
     * Registers the op on all its variables as one step with respect to other pushes ({@link Registration}).
     * A deleted variable refuses the whole op: nothing is registered, the op is cancelled (it will be
     * skipped), and the returned exception should be thrown to the pusher once the guard is dropped.
     * Pusher thread, once.
     *
     * @return null, or the exception naming the deleted variable
     */
    public RuntimeException register() {
        Var refused = host.registration().register(op(), def);
        if (refused == null) {
            registered = def.varCount();
            return null;
        }
        cancelled = new IllegalStateException(refused + " was deleted; it cannot be used by op '" + name()
                + "' (deleted concurrently with this push)");
        grantedAtPush = def.varCount(); // nothing was registered: no variable will ever release it
        return cancelled;
    }

    /** A replay's registration appended this op's registered accesses. Pusher thread. */
    void registeredReplay() {
        registered = slot.registered();
    }

    /**
     * A replay's registration was refused (a variable of the graph was deleted concurrently): nothing
     * of the replay was registered, and this op will be skipped once its predecessors in the replay are.
     */
    void cancelReplay(RuntimeException refused) {
        cancelled = refused;
        grantedAtPush = slot.registered(); // no variable will release it; its predecessors still will
    }

    /** {@code n} of the op's variables let it go during its push (pusher): dropped with the guard. */
    void granted(int n) {
        grantedAtPush += n;
    }

    /** Counts one registration made outside {@link #register()} (tests driving one variable at a time). */
    void appended() {
        registered++;
    }

    /**
     * Drops the push guard together with the grants the variables made during the push; true if the
     * op is ready now (the pusher must dispatch it).
     */
    public boolean dropGuard() {
        int drop = grantedAtPush + 1;
        if (drop == waitsAtPush) {
            // Every registration let it go (or there is none): nothing else holds the latch, so no
            // other thread touches it, and a plain store does.
            WAIT.setRelease(this, 0);
            return true;
        }
        return (int) WAIT.getAndAdd(this, -drop) == drop;
    }

    /** A variable, or a predecessor in the replay, lets the op go; dispatches it through the host at zero. */
    void release(OpBlock by) {
        if (by.listener != null) {
            by.listener.released(by, op());
        }
        if (waitsAtPush == 1) {
            // Its one predecessor in the replay is all it waits for (no guard, no registration): nothing
            // else touches the latch, and a plain store does, as in dropGuard.
            WAIT.setRelease(this, 0);
            host.ready(op());
        } else if ((int) WAIT.getAndAdd(this, -1) == 1) {
            host.ready(op());
        }
    }

    /** The number of dependencies still holding the op back (for diagnostics). */
    public int waitCount() {
        return (int) WAIT.getAcquire(this);
    }

    /** Whether a registration was refused: the op is skipped when it runs. Set before the guard drops. */
    public boolean isCancelled() {
        return cancelled != null;
    }

    /** The exception that cancelled the push (to be thrown to the pusher), or null. */
    public RuntimeException cancellation() {
        return cancelled;
    }

    /**
     * Lets the op's registered accesses go (none for a cancelled op), at its completion or at its
     * launch; {@code failure} is what its writes pass on (null: the variables keep what they carry).
     * Successors may be dispatched on this thread.
     */
    final void releaseRegistrations(Failure failure, boolean atLaunch) {
        int n = registered;
        if (n == 0) {
            return;
        }
        OpBlock op = op();
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        ReplaySlot s = slot;
        if (s == null) {
            for (int i = 0; i < reads.length && n > 0; i++, n--) {
                reads[i].completeRead(op, atLaunch);
            }
            for (int i = 0; i < writes.length && n > 0; i++, n--) {
                writes[i].completeWrite(op, failure, atLaunch);
            }
            return;
        }
        for (int i = 0; i < reads.length; i++) {
            if (s.registers(i)) {
                reads[i].completeRead(op, atLaunch);
            }
        }
        for (int i = 0; i < writes.length; i++) {
            if (s.registers(reads.length + i)) {
                writes[i].completeWrite(op, failure, atLaunch);
            }
        }
    }
}
