package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.RunContext;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
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
 * <p>Registration is two-phase locking over the op's variables ({@link Registration}): the pushes of
 * all threads are serialisable and keep each thread's order; pushes over disjoint variables do not
 * wait for each other. The op is also the queue node of its first queued registration.
 *
 * <p><b>Lifecycle.</b> One state word holds the phase, {@code PENDING -> RUNNING -> DONE -> FINISHED},
 * and two flags, cancelled and in flight (see the overview in the source). Its contract:
 * <ul>
 *   <li>Of {@link #complete()}, {@link #fail(Throwable)} and {@link #skip(Failure)}, racing on any
 *   threads, exactly one succeeds; every other call, and any but {@code skip} before {@link #start},
 *   throws {@link IllegalStateException} and changes nothing.</li>
 *   <li>Actions before {@link #start}, before the winning completion, and before {@link #markFinished()}
 *   happen-before those of a thread that then sees {@link #isStarted()}, {@link #isCompleted()}, and
 *   {@link #isFinished()} (or returns from {@link #awaitFinished}) respectively.</li>
 *   <li>{@link #awaitFinished} never misses {@link #markFinished()}, whichever comes first.</li>
 *   <li>{@link #markInFlight} succeeds only before completion: either the completing host sees
 *   {@link #isInFlight()}, or {@code markInFlight} returns false; never both, never neither.</li>
 *   <li>{@link #isCancelled()} is set before the push guard drops and never cleared.</li>
 * </ul>
 *
 * <p><b>Release at launch</b> (device ops of engines that opt in): a launched op ({@link #launch})
 * releases its variables before its device work is done and stays a <em>fence</em> until
 * {@link #markDeviceDone}; the ops released behind it carry it to the dispatcher. That state lives in a
 * {@link Fencing}, allocated only for the ops that take part; the variables' side is in {@link Var}.
 * The wait counter, free once an op is ready, counts the op's host-side deferrals behind fences.
 */
public final class OpBlock extends PushedOp implements RunContext, CallbackOnComplete {
    /*
     * Implementation overview: the state word (STATE). Bits 0-1 are the phase, which only moves
     * forward; bit 2 (CANCELLED) and bit 3 (IN_FLIGHT) are flags, set at most once, never cleared.
     *
     *   PENDING  0  pushed, not started (registering, waiting for its variables, or queued)
     *   RUNNING  1  started; its function runs, or its callback or device work is awaited
     *   DONE     2  completion signalled (complete, fail or skip); the host releases the variables
     *   FINISHED 3  the host is done: variables released, pending count left, waiter woken
     *   CANCELLED   a registration was refused (a deleted variable): the op will be skipped
     *   IN_FLIGHT   in the engine's in-flight registry: its function returned before its completion
     *
     *   from              event                  to                 who                        thread
     *   PENDING           register() refused     PENDING|CANCELLED  AbstractEngine.submit      pusher, guard held
     *   PENDING           start(stream)          RUNNING            OpExecution.run / refuse   dispatching thread
     *   RUNNING           markInFlight(): true   RUNNING|IN_FLIGHT  Diagnostics.inFlight       runner, fn returned
     *   DONE, FINISHED    markInFlight(): false  (unchanged)        Diagnostics.inFlight       runner
     *   RUNNING           complete(), fail(e)    DONE               fn, callback, device done  any thread
     *   PENDING, RUNNING  skip(inherited)        DONE               OpExecution (skip rules)   runner
     *   any other         complete/fail/skip     (unchanged): ISE   a second completion        any thread
     *   DONE              markFinished()         FINISHED           OpHost.completed, last     completing thread
     *
     * Every transition keeps the flags; all go through transition(), one CAS, except start.
     *
     * Memory: start is a release store, safe without a CAS because nothing else writes the word while
     * the op is PENDING and owned by its dispatcher (CANCELLED is set before the guard drops, and the
     * wait counter orders it before the dispatch; a waiter never writes the word). After DONE only
     * markFinished writes it (markInFlight fails), so its CAS succeeds at once. Queries read acquire.
     *
     * Wake-up: awaitFinished writes waiter (volatile), then reads the word (volatile); markFinished
     * CASes the word, then reads waiter. Both pairs are in the synchronization order, so the waiter
     * sees FINISHED or markFinished sees the waiter and unparks it.
     *
     * In flight: markInFlight and the completing CAS hit the same word, so one comes first. If the
     * flag does, the completing host sees it and unregisters the op; else markInFlight fails and its
     * caller unregisters the op it had registered. Exactly one of them does.
     */
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

    private static final int PHASE = 0b11;
    private static final int PENDING = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private static final int FINISHED = 3;
    private static final int CANCELLED = 1 << 2;
    private static final int IN_FLIGHT = 1 << 3;

    private final OpHost host;

    @SuppressWarnings("unused") // accessed through WAIT
    private volatile int wait;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile Thread waiter; // a thread parked in awaitFinished

    private int registered;        // how many of reads+writes were registered (all, unless cancelled)
    private int grantedAtPush;     // pusher only: registrations that let the op go during the push
    private RuntimeException cancelled; // set when a registration was refused, with CANCELLED
    private Stream stream;
    private Thread runner;         // the thread that started it; read racily by diagnostics only
    private Failure failure;       // own or taken over; set before completion
    private Outcome outcome;
    private long inFlightSince;    // written before IN_FLIGHT is set, read after it is seen

    private volatile Fencing fencing; // null unless launched on a device or released behind such an op

    /**
     * The block of one push of {@code def} to {@code host}, to run on {@code ctx} ({@code device}: null
     * for internal ops); {@code listener} is the engine's at push time, or null, and {@code account} the
     * pending-op count the push entered (null where the host keeps none). See {@link PushedOp}.
     */
    public OpBlock(OpDef def, OpHost host, Context ctx, int priority, boolean profiling, long id, OpListener listener,
                   OpAccount account, OpDevice device) {
        super(def, ctx, priority, profiling, id, listener, account, device);
        this.host = host;
        WAIT.setRelease(this, def.reads().length + def.writes().length + 1);
    }

    // ---- registration (pusher thread) -------------------------------------------------------------

    /**
     * Registers the op on all its variables as one step with respect to other pushes ({@link Registration}).
     * A deleted variable refuses the whole op: nothing is registered, the op is cancelled, and the returned
     * exception should be thrown to the pusher once the guard is dropped. Pusher thread, once.
     *
     * @return null, or the exception naming the deleted variable
     */
    public RuntimeException register() {
        Var refused = host.registration().register(this, def);
        if (refused == null) {
            registered = def.varCount();
            return null;
        }
        cancelled = new IllegalStateException(refused + " was deleted; it cannot be used by op '" + name()
                + "' (deleted concurrently with this push)");
        transition(1 << PENDING, PENDING, CANCELLED);
        grantedAtPush = def.varCount(); // nothing was registered: no variable will ever release it
        return cancelled;
    }

    /**
     * Drops the push guard together with the grants the variables made during the push; true if the
     * op is ready now (the pusher must dispatch it).
     */
    public boolean dropGuard() {
        int drop = grantedAtPush + 1;
        if (drop == def.varCount() + 1) {
            // Every variable let it go (or none took it): no variable holds it, so no other thread can
            // touch the counter, and a plain store does.
            WAIT.setRelease(this, 0);
            return true;
        }
        return (int) WAIT.getAndAdd(this, -drop) == drop;
    }

    /** {@code n} of the op's variables let it go during its push (pusher): dropped with the guard. */
    void granted(int n) {
        grantedAtPush += n;
    }

    /** Counts one registration made outside {@link #register()} (tests driving one variable at a time). */
    void appended() {
        registered++;
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
     * before that work is done (call before {@link #releaseVariables()}). {@code event} marks the end of
     * that work, for device-side waits, or is null if the device cannot wait on the device.
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

    /** A launched op's device work is done: the ops deferred behind it go, its variables forget it as a fence. */
    public void markDeviceDone() {
        fencing.deviceDone();
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

    /** The exception that cancelled the push (to be thrown to the pusher), or null. */
    public RuntimeException cancellation() {
        return cancelled;
    }

    /** Whether a registration was refused: the op is skipped when it runs. */
    public boolean isCancelled() {
        return ((int) STATE.getAcquire(this) & CANCELLED) != 0;
    }

    /** PENDING to RUNNING: marks the op started on {@code s} (may be null), on the calling thread. */
    public void start(Stream s) {
        this.stream = s;
        this.runner = Thread.currentThread();
        int w = (int) STATE.get(this); // the dispatcher owns a pending op: no other writer (see the overview)
        assert (w & PHASE) == PENDING : this + " started twice";
        STATE.setRelease(this, w + (RUNNING - PENDING));
    }

    /** Completes the op without running it, passing {@code inherited} (may be null) on to its writes. */
    public void skip(Failure inherited) {
        if (!transition(1 << PENDING | 1 << RUNNING, DONE, 0)) {
            throw new IllegalStateException("op '" + name() + "' was already completed");
        }
        this.failure = inherited;
        this.outcome = Outcome.SKIPPED;
        host.completed(this, null);
    }

    @Override
    public void complete() {
        if (!transition(1 << RUNNING, DONE, 0)) {
            throw new IllegalStateException(alreadyCompleted("complete()"));
        }
        outcome = Outcome.DONE;
        host.completed(this, null);
    }

    @Override
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        if (!transition(1 << RUNNING, DONE, 0)) {
            throw new IllegalStateException(alreadyCompleted("fail(" + error + ")"));
        }
        outcome = Outcome.FAILED;
        host.completed(this, error);
    }

    /**
     * The state machine's one CAS: from a phase in {@code fromPhases} (a set of {@code 1 << phase} bits)
     * to phase {@code to}, with {@code flags} added to those it had. False, changing nothing, if not.
     */
    private boolean transition(int fromPhases, int to, int flags) {
        int w = (int) STATE.getVolatile(this);
        while (true) {
            if ((fromPhases & (1 << (w & PHASE))) == 0) {
                return false;
            }
            int seen = (int) STATE.compareAndExchange(this, w, (w & ~PHASE) | to | flags);
            if (seen == w) {
                return true;
            }
            w = seen; // a flag was set meanwhile: retry on the new word
        }
    }

    /**
     * RUNNING to RUNNING|IN_FLIGHT: the op's function returned before its completion (a callback or
     * device work is to come), and the caller put it in its in-flight registry at {@code sinceNanos}.
     * True if flagged (the completing host will see {@link #isInFlight()}); false if the op completed
     * already, and the caller must take it out of its registry itself.
     */
    public boolean markInFlight(long sinceNanos) {
        inFlightSince = sinceNanos; // published by the CAS
        return transition(1 << RUNNING, RUNNING, IN_FLIGHT);
    }

    /** Whether {@link #markInFlight} flagged the op (it stays flagged after completion). */
    public boolean isInFlight() {
        return ((int) STATE.getAcquire(this) & IN_FLIGHT) != 0;
    }

    /** When the op was flagged in flight ({@link System#nanoTime()}); valid once {@link #isInFlight()}. */
    public long inFlightSince() {
        return inFlightSince;
    }

    /** Whether the op has started (or completed). */
    public boolean isStarted() {
        return ((int) STATE.getAcquire(this) & PHASE) != PENDING;
    }

    /** Whether completion has been signalled. */
    public boolean isCompleted() {
        return ((int) STATE.getAcquire(this) & PHASE) >= DONE;
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

    /**
     * Releases the op's registrations after completion (none for a cancelled op); successors may be
     * dispatched on this thread.
     */
    public void releaseVariables() {
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        int n = registered;
        for (int i = 0; i < reads.length && n > 0; i++, n--) {
            reads[i].completeRead(this);
        }
        for (int i = 0; i < writes.length && n > 0; i++, n--) {
            writes[i].completeWrite(this, failure);
        }
    }

    /**
     * DONE to FINISHED: the host has completed the op (variables released, accounting done); wakes a
     * thread blocked in {@link #awaitFinished}. Called last by the host, on the completing thread.
     */
    public void markFinished() {
        if (!transition(1 << DONE, FINISHED, 0)) {
            throw new IllegalStateException(this + " cannot be finished: it is not completed, or finished already");
        }
        Thread t = waiter; // after the CAS: see the overview (wake-up)
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Whether {@link #markFinished} was called. */
    public boolean isFinished() {
        return ((int) STATE.getAcquire(this) & PHASE) == FINISHED;
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
        if (isFinished()) {
            return true;
        }
        waiter = Thread.currentThread();
        try {
            // A volatile read after the volatile write of waiter: see the overview (wake-up).
            while (((int) STATE.getVolatile(this) & PHASE) != FINISHED) {
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

    // ---- RunContext / OpInfo (the rest is in PushedOp) -------------------------------------------

    @Override
    public Stream stream() {
        return stream;
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
}
