package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;

/**
 * One pushed run of an op: the unit the tracker and the workers move around. It is also the op's
 * {@link RunContext} and its {@link CallbackOnComplete}, so a push allocates one object for all three.
 *
 * <p>The wait counter starts at {@code registrations + 1}. Each variable decrements it once when it
 * lets the op go; the extra one (the push guard) is dropped by the pusher after every registration,
 * so the op cannot start, on any thread, before all its dependencies are registered. The variables
 * that let the op go during its own push are counted on the pusher and dropped with the guard, in one
 * counter update. Whoever takes the counter to zero dispatches the op: the pusher (guard) or the
 * releasing op's thread.
 *
 * <p>Registration is two-phase locking over the op's variables: {@link #register()} locks them all in
 * their global order ({@link Var#lockOrder()}), appends to each, then unlocks. Two pushes that share a
 * variable are thereby ordered the same way on every variable they share, the pushes of all threads
 * are serialisable, and each thread's pushes keep their order; pushes over disjoint variables do not
 * wait for each other. The op is also the queue node of its first queued registration.
 *
 * <p>The completion state moves once, RUNNING to DONE, by CAS: a second completion is an
 * {@link IllegalStateException}.
 *
 * <p><b>Release at launch</b> (device ops of engines that opt in): a launched op ({@link #launch})
 * releases its variables before its device work is done and stays a <em>fence</em> until
 * {@link #markDeviceDone}; the ops released behind it carry it to the dispatcher. That state lives in a
 * {@link Fencing}, allocated only for the ops that take part; the variables' side is in {@link Var}.
 * The wait counter, free once an op is ready, counts the op's host-side deferrals behind fences.
 */
public final class OpBlock extends Var.Node implements RunContext, CallbackOnComplete, OpInfo {
    private static final VarHandle WAIT;
    private static final VarHandle STATE;
    private static final VarHandle FENCING;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            WAIT = l.findVarHandle(OpBlock.class, "wait", int.class);
            STATE = l.findVarHandle(OpBlock.class, "state", int.class);
            FENCING = l.findVarHandle(OpBlock.class, "fencing", Fencing.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int PENDING = 0;   // registered, not started
    private static final int RUNNING = 1;   // started; completion not yet signalled
    private static final int DONE = 2;      // completion signalled (or skipped)

    private final OpDef def;
    private final OpHost host;
    private final Context ctx;
    private final int priority;
    private final boolean profiling;
    private final long id;
    private final OpListener listener;

    @SuppressWarnings("unused") // accessed through WAIT
    private volatile int wait;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile Thread waiter; // a thread parked in awaitFinished
    private volatile boolean finished;

    /** Engine-owned routing data (which worker group, for instance); set before registration. */
    public Object route;
    /** Core-owned: the pending-op epoch the op is counted in; set before registration. */
    public Object accounting;
    /** Core-owned: the engine device the op runs on (null for internal ops); set before registration. */
    public Object device;

    private int registered;        // how many of reads+writes were registered (all, unless cancelled)
    private int grantedAtPush;     // pusher only: registrations that let the op go during the push
    private boolean nodeUsed;      // pusher only: whether the op is already its own queue node
    private RuntimeException cancelled; // set when a registration was refused
    private Stream stream;
    private Thread runner;         // the thread that started it; read racily by diagnostics only
    private Failure failure;       // own or taken over; set before completion
    private Outcome outcome;
    /** Timestamps for listeners (0 when no listener). */
    public long readyNanos;

    // Release at launch: null unless the op launched on a device or was released behind one (FENCING).
    private volatile Fencing fencing;
    /** Core-owned: when the op was left running off-thread (async callback or device), for diagnostics. */
    public long inFlightSince;
    /** Core-owned: whether the op is in the engine's in-flight registry. */
    public volatile boolean inFlight;

    /**
     * @param def what the op does
     * @param host the engine
     * @param ctx where it runs
     * @param listener the engine's listener at push time, or null
     */
    public OpBlock(OpDef def, OpHost host, Context ctx, int priority, boolean profiling, long id, OpListener listener) {
        this.def = def;
        this.host = host;
        this.ctx = ctx;
        this.priority = priority;
        this.profiling = profiling;
        this.id = id;
        this.listener = listener;
        WAIT.setRelease(this, def.reads().length + def.writes().length + 1);
    }

    // ---- registration (pusher thread) -------------------------------------------------------------

    /**
     * Registers the op on all its variables as one step with respect to other pushes: locks them in
     * {@link Var#lockOrder()}, checks that none is deleted, appends the reads and the writes, unlocks. A
     * deleted variable refuses the whole op: nothing is registered, the op is cancelled, and the
     * returned exception should be thrown to the pusher once the guard is dropped. Pusher thread, once.
     *
     * @return null, or the exception naming the deleted variable
     */
    public RuntimeException register() {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        Var[] locks = def.lockOrder();
        boolean deletes = def.kind() == OpDef.Kind.DELETE_VAR;
        Var refused = null;
        int granted = 0;
        for (Var v : locks) {
            v.lock();
        }
        try {
            for (Var v : locks) {
                if (v.deletedLocked()) {
                    refused = v;
                    break;
                }
            }
            if (refused == null) {
                for (Var v : reads) {
                    granted += v.readLocked(this);
                }
                for (Var v : writes) {
                    granted += v.writeLocked(this, deletes);
                }
            }
        } finally {
            for (Var v : locks) {
                v.unlock();
            }
        }
        if (refused != null) {
            cancelled = new IllegalStateException(refused + " was deleted; it cannot be used by op '" + name()
                    + "' (deleted concurrently with this push)");
            granted = locks.length; // nothing was registered: no variable will ever release it
        } else {
            registered = locks.length;
        }
        grantedAtPush = granted;
        return cancelled;
    }

    /**
     * Drops the push guard together with the grants the variables made during the push; true if the
     * op is ready now (the pusher must dispatch it).
     */
    public boolean dropGuard() {
        int drop = grantedAtPush + 1;
        if (drop == def.lockOrder().length + 1) {
            // Every variable let it go (or none took it): no variable holds it, so no other thread can
            // touch the counter, and a plain store does.
            WAIT.setRelease(this, 0);
            return true;
        }
        return (int) WAIT.getAndAdd(this, -drop) == drop;
    }

    /**
     * The op was appended to one more variable on its own ({@link Var#appendRead}, in reads-then-writes
     * order), which let it go at once or queued it.
     */
    void appendedAlone(int granted) {
        registered++;
        grantedAtPush += granted;
    }

    /**
     * The queue node for one registration of this op (under that variable's lock, on the pusher): the
     * op itself the first time, a new node after that.
     */
    Var.Node node(boolean write) {
        Var.Node n;
        if (nodeUsed) {
            n = new Var.Queued(this);
        } else {
            nodeUsed = true;
            n = this;
        }
        n.write = write;
        return n;
    }

    @Override
    OpBlock op() {
        return this;
    }

    /** A completing op lets this op go; dispatches it through the host at zero. */
    void release(OpBlock by) {
        if (by.listener != null) {
            by.listener.released(by, this);
        }
        if ((int) WAIT.getAndAdd(this, -1) == 1) {
            host.ready(this);
        }
    }

    // ---- release at launch: fences (the state lives in Fencing) ------------------------------------

    /** The op's release-at-launch state, or null if it neither launched nor was released behind a launched op. */
    public Fencing fencing() {
        return fencing;
    }

    private Fencing fencingForUpdate() {
        Fencing f = fencing;
        if (f != null) {
            return f;
        }
        Fencing mine = new Fencing(this); // two releasing threads may race to add the first fence
        Fencing won = (Fencing) FENCING.compareAndExchange(this, (Fencing) null, mine);
        return won != null ? won : mine;
    }

    /**
     * Marks the op launched: its device work is enqueued and its variables are about to be released
     * before that work is done. Call before {@link #releaseVariables()}.
     *
     * @param event marks the end of the op's device work (for device-side waits), or null if the device
     *     cannot wait on the device
     */
    public void launch(Event event) {
        fencingForUpdate().launch(event);
    }

    /** Whether the op released its variables at launch. */
    public boolean isLaunched() {
        Fencing f = fencing;
        return f != null && f.isLaunched();
    }

    /** Whether the op is launched and its device work may still be running: a fence for successors. */
    public boolean isFence() {
        Fencing f = fencing;
        return f != null && f.isFence();
    }

    /** Records that this op was released behind {@code fence} (a launched op). Any thread. */
    void addFence(OpBlock fence) {
        fencingForUpdate().addFence(fence);
    }

    /** Whether fences are waiting for the dispatcher's decision (cheap: a null check when there are none). */
    public boolean hasFences() {
        Fencing f = fencing;
        return f != null && f.hasFences();
    }

    /** Sets the wait counter to one, the deferral guard, once the op is ready (see {@link Fencing#takeFences}). */
    void armDeferral() {
        WAIT.setRelease(this, 1);
    }

    /** One more host-side deferral holds the op back. */
    void holdBack() {
        WAIT.getAndAdd(this, 1);
    }

    /** Drops one hold; true if it was the last (the caller dispatches the op). */
    boolean dropHold() {
        return (int) WAIT.getAndAdd(this, -1) == 1;
    }

    /**
     * The device work of a launched op is done: ops deferred behind it may go, and its variables
     * forget it as a fence (nothing keeps a done op alive).
     */
    public void markDeviceDone() {
        Object deferred = fencing.markDeviceDone();
        for (Var v : def.reads()) {
            v.forgetFence(this);
        }
        for (Var v : def.writes()) {
            v.forgetFence(this);
        }
        Fencing.releaseDeferred(deferred);
    }

    /** A host-side deferral ends; dispatches the op through the host if it was the last. */
    void releaseDeferred() {
        if (dropHold()) {
            host.ready(this);
        }
    }

    /** Whether the op was released by its variables and is now held back on the host behind a fence. */
    public boolean isDeferred() {
        Fencing f = fencing;
        return f != null && f.isGated() && (int) WAIT.getAcquire(this) > 0 && !isStarted();
    }

    /** The number of registrations and deferrals still holding the op back (for diagnostics). */
    public int waitCount() {
        return (int) WAIT.getAcquire(this);
    }

    /** The thread that started the op, or null if not started (a racy read: for diagnostics only). */
    public Thread runner() {
        return runner;
    }

    /** The stream the op started on, or null (for fences: the stream its device work was enqueued on). */
    public Stream startedStream() {
        return stream;
    }

    // ---- running (worker) -------------------------------------------------------------------------

    /** The op's definition. */
    public OpDef def() {
        return def;
    }

    /** The listener captured at push, or null. */
    public OpListener listener() {
        return listener;
    }

    /** The exception that cancelled the push, or null. */
    public RuntimeException cancellation() {
        return cancelled;
    }

    /** Marks the op started on {@code stream} (may be null), on the calling thread. */
    public void start(Stream s) {
        this.stream = s;
        this.runner = Thread.currentThread();
        STATE.setRelease(this, RUNNING);
    }

    /** Completes the op without running it, passing {@code inherited} (may be null) on to its writes. */
    public void skip(Failure inherited) {
        if (!STATE.compareAndSet(this, RUNNING, DONE) && !STATE.compareAndSet(this, PENDING, DONE)) {
            throw new IllegalStateException("op '" + name() + "' was already completed");
        }
        this.failure = inherited;
        this.outcome = Outcome.SKIPPED;
        host.completed(this, null);
    }

    @Override
    public void complete() {
        if (!STATE.compareAndSet(this, RUNNING, DONE)) {
            throw new IllegalStateException(alreadyCompleted("complete()"));
        }
        outcome = Outcome.DONE;
        host.completed(this, null);
    }

    @Override
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        if (!STATE.compareAndSet(this, RUNNING, DONE)) {
            throw new IllegalStateException(alreadyCompleted("fail(" + error + ")"));
        }
        outcome = Outcome.FAILED;
        host.completed(this, error);
    }

    /** Whether the op has started (or completed). */
    public boolean isStarted() {
        return (int) STATE.getAcquire(this) != PENDING;
    }

    /** Whether completion has been signalled. */
    public boolean isCompleted() {
        return (int) STATE.getAcquire(this) == DONE;
    }

    private String alreadyCompleted(String call) {
        return "op '" + name() + "' was already completed: " + call
                + " is a second completion; call complete() or fail() exactly once per run";
    }

    /** Sets the failure that will be attached to the op's writes (called by the host on completion). */
    public void setFailure(Failure f) {
        this.failure = f;
    }

    /** The failure attached to the op's writes at completion (own or taken over), or null. */
    public Failure failureRecord() {
        return failure;
    }

    /** Releases the op's registrations after completion; successors may be dispatched on this thread. */
    public void releaseVariables() {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        int n = registered;
        boolean counts = cancelled == null;
        for (int i = 0; i < reads.length && n > 0; i++, n--) {
            reads[i].completeRead(this);
        }
        for (int i = 0; i < writes.length && n > 0; i++, n--) {
            writes[i].completeWrite(this, failure, counts);
        }
    }

    /**
     * Marks the op finished: the host has completed it (variables released, accounting done) and
     * wakes a thread blocked in {@link #awaitFinished}. Called last by the host.
     */
    public void markFinished() {
        finished = true;
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Whether {@link #markFinished} was called. */
    public boolean isFinished() {
        return finished;
    }

    /**
     * Blocks until {@link #markFinished} has been called, or until the deadline. One thread at a
     * time may wait.
     *
     * @param deadlineNanos a {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE} for none
     * @return true when finished; false on timeout
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitFinished(long deadlineNanos) throws InterruptedException {
        if (finished) {
            return true;
        }
        waiter = Thread.currentThread();
        try {
            while (!finished) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (deadlineNanos == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    LockSupport.parkNanos(this, left);
                }
            }
            return true;
        } finally {
            waiter = null;
        }
    }

    // ---- RunContext / OpInfo ----------------------------------------------------------------------

    @Override
    public Context context() {
        return ctx;
    }

    @Override
    public Stream stream() {
        return stream;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public String name() {
        String n = def.givenName();
        return n != null ? n : "op#" + id;
    }

    @Override
    public FnProperty property() {
        return def.prop();
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public List<org.depengine.api.VarHandle> reads() {
        return def.readList();
    }

    @Override
    public List<org.depengine.api.VarHandle> writes() {
        return def.writeList();
    }

    @Override
    public boolean profiling() {
        return profiling;
    }

    @Override
    public Map<String, Object> args() {
        return def.args();
    }

    @Override
    public Outcome outcome() {
        return outcome;
    }

    @Override
    public Throwable failure() {
        Failure f = failure;
        return f == null ? null : f.error();
    }

    @Override
    public String toString() {
        return "op '" + name() + "' on " + ctx;
    }
}
