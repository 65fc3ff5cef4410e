package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.EngineDiagnostics.OpState;
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
 * <p><b>Lifecycle.</b> The op owns its whole life, as {@code FutureTask} does: one state word holds the
 * phase, {@code PENDING -> RUNNING -> DONE -> FINISHED}, and its flags (the table in the source), and
 * the completion that wins runs the rest of the op's completion itself ({@code finishCompletion}): its
 * outcome and failure, the engine's hooks ({@link OpHost#completed}), the release of its variables (or,
 * for an op released at launch, the end of its fence), the pending count it entered, and FINISHED. The
 * engine only observes. Its contract:
 * <ul>
 *   <li>Of {@link #complete()}, {@link #fail(Throwable)} and {@link #skip(Failure)}, racing on any
 *   threads, exactly one succeeds; every other call, and any before {@link #start}, throws
 *   {@link IllegalStateException} and changes nothing.</li>
 *   <li>Actions before {@link #start}, before the winning completion, and before the op is finished
 *   happen-before those of a thread that then sees {@link #isStarted()}, {@link #isCompleted()}, and
 *   {@link #isFinished()} (or returns from {@link #awaitFinished}) respectively.</li>
 *   <li>{@link #awaitFinished} never misses the op's finish, whichever comes first.</li>
 *   <li>{@link #markInFlight} succeeds only before completion: either the host's completion hook sees
 *   {@link #isInFlight()}, or {@code markInFlight} returns false; never both, never neither.</li>
 *   <li>{@link #isCancelled()} is set before the push guard drops and never cleared.</li>
 * </ul>
 *
 * <p><b>Replayed ops</b> ({@link #linkReplay}): an op of a graph's replay registers only its accesses
 * that the graph's {@link ReplayLinks} do not skip, and its wait counter also counts its predecessors
 * in the same replay, each of which lets it go ({@code release}) at its completion, after its variables
 * (never at launch), once its skipped writes are counted and carry its failure.
 *
 * <p><b>Release at launch</b> (device ops of engines that opt in): an op released at launch
 * ({@link #releaseAtLaunch}) releases its variables before its device work is done and stays a
 * <em>fence</em> until its completion; the ops released behind it carry it to the dispatcher, which
 * decides how they wait for it ({@link #deferBehindFences}). The flags live in the state word; the
 * lists (the fences an op carries, the ops deferred behind a fence) live in a {@link Fencing},
 * allocated only for the ops that take part; the variables' side is in {@link Var}. The wait counter,
 * free once an op is ready, counts the op's host-side deferrals behind fences.
 */
public final class OpBlock extends PushedOp implements RunContext, CallbackOnComplete {
    /*
     * Implementation overview: the op's state, in its three carriers. The state word (STATE): bits 0-1
     * are the phase, which only moves forward; the flags above them are set at most once, never cleared.
     * The wait counter (WAIT). The lists of the op's Fencing (fences, deviceFences, doneWaiters).
     *
     *   phase    PENDING 0   pushed, not started (registering, waiting for its variables, deferred, queued)
     *            RUNNING 1   started; its function runs, or its callback or device work is awaited
     *            DONE 2      a completion won; the completing thread is running finishCompletion
     *            FINISHED 3  finishCompletion is done: variables released, pending count left, waiter woken
     *   flags    CANCELLED           a registration was refused (a deleted variable): the op will be skipped
     *            IN_FLIGHT           in the engine's in-flight registry: its function returned before completion
     *            LAUNCHED            ... because its device work is enqueued and not done (with IN_FLIGHT)
     *            RELEASED_AT_LAUNCH  its variables were released at launch: a fence until DEVICE_DONE
     *            DEVICE_DONE         a fence's completion: the ops deferred behind it go
     *            FENCES_TAKEN        the dispatcher took the op's fences and deferred it behind them
     *            RUN_ENDED           the thread that ran it no longer touches it (endRun, or completeEndingRun;
     *                                read for replayed ops only)
     *
     *   from                event                        to (word; counter; lists)                who             thread
     *   PENDING             register() refused           +CANCELLED                               OpBlock.register  pusher, guard held
     *   PENDING             variable grants / guard      WAIT-1 (0: dispatch)                     Var, dropGuard  releasing / pusher
     *   PENDING, WAIT 0     takeFences, fences to wait   +FENCES_TAKEN; WAIT=1, +1 per host       deferBehindFences  dispatcher
     *                                                    deferral, -1 guard; fences -> deviceFences
     *                                                    or the fences' doneWaiters
     *   PENDING             a fence's DEVICE_DONE        WAIT-1 (0: dispatch again)               Fencing.deviceDone  fence's completer
     *   PENDING             start(stream)                RUNNING                                  OpExecution     dispatching thread
     *   RUNNING             markInFlight: true           +IN_FLIGHT (+LAUNCHED on a device)       Diagnostics.inFlight  runner, fn returned
     *   DONE, FINISHED      markInFlight: false          (unchanged)                              Diagnostics.inFlight  runner
     *   RUNNING             releaseAtLaunch(event)       +RELEASED_AT_LAUNCH|LAUNCHED, variables  DeviceOrdering  runner, fn returned
     *                                                    released
     *   RUNNING             complete, fail, skip         DONE, then finishCompletion:             fn, callback,   any thread
     *                                                                                             device, skip rule
     *   DONE                  (released at launch)       +DEVICE_DONE; doneWaiters emptied        finishCompletion  completing thread
     *   DONE                  (else)                     variables released                       finishCompletion  completing thread
     *   DONE                  (last)                     FINISHED, waiter unparked                finishCompletion  completing thread
     *   RUNNING, DONE, FIN.  endRun (replayed ops)        +RUN_ENDED                               OpExecution     runner, last
     *   DONE                 completeEndingRun (last)     FINISHED|RUN_ENDED in one CAS            OpExecution     runner, last
     *   FINISHED+RUN_ENDED   reuse (a later replay)       PENDING, all fields reset                AbstractEngine  next replayer
     *   PENDING, DONE, FIN.   complete, fail, skip       (unchanged): ISE                         a second or early completion
     *
     * Every transition keeps the flags. The phase moves by one CAS each (transition()), except start,
     * a release store; flags set on a running op use the same CAS, those set while only one thread can
     * write the word (DEVICE_DONE, FENCES_TAKEN) an atomic or.
     *
     * CPU ops (no device, no fences) take exactly the word's start store and two CASes (DONE, FINISHED),
     * and read the flags from the word their completing CAS wrote: the release-at-launch machinery costs
     * them nothing but a null check of the Fencing in dispatch.
     *
     * Memory: start is a release store, safe without a CAS because nothing else writes the word while
     * the op is PENDING and owned by its dispatcher (CANCELLED is set before the guard drops, and
     * FENCES_TAKEN before the deferral guard drops; the wait counter orders both before the dispatch; a
     * waiter never writes the word). After DONE only the completing thread writes it (markInFlight and
     * the other completions fail), so its atomic or and the FINISHED CAS succeed at once. The outcome and
     * the failure are written by the winning completion after its CAS, before FINISHED: they are read on
     * the completing thread (the hooks, the listener) or after isFinished. Queries read acquire.
     *
     * Wake-up: awaitFinished writes waiter (volatile), then reads the word (volatile); finishing CASes the
     * word, then reads waiter. Both pairs are in the synchronization order, so the waiter sees FINISHED
     * or the finishing thread sees the waiter and unparks it.
     *
     * In flight: markInFlight and the completing CAS hit the same word, so one comes first. If the flag
     * does, the host's completion hook sees it and unregisters the op; else markInFlight fails and its
     * caller unregisters the op it had registered. Exactly one of them does.
     *
     * Device done: DEVICE_DONE is set under the Fencing's monitor after the op's late failure is attached
     * to its writes, and deferUntilDeviceDone checks it under the same monitor: an op deferred behind the
     * fence is either in the doneWaiters the completion takes, or sees DEVICE_DONE and is not deferred;
     * a dispatcher that sees DEVICE_DONE (isFence false) sees the failure too.
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
    private static final int LAUNCHED = 1 << 4;
    private static final int RELEASED_AT_LAUNCH = 1 << 5;
    private static final int DEVICE_DONE = 1 << 6;
    private static final int FENCES_TAKEN = 1 << 7;
    private static final int RUN_ENDED = 1 << 8;

    private final OpHost host;

    @SuppressWarnings("unused") // accessed through WAIT
    private volatile int wait;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile Thread waiter; // a thread parked in awaitFinished

    private int registered;        // how many of reads+writes were registered (all, unless cancelled)
    private int waitsAtPush;       // the wait counter's start: registrations, edges of a replay, the guard
    private ReplayLinks links;     // a replayed op's accesses and edges, else null (set before registration)
    private OpBlock[] peers;       // the ops of the same replay, indexed as in the graph
    private int grantedAtPush;     // pusher only: registrations that let the op go during the push
    private RuntimeException cancelled; // set when a registration was refused, with CANCELLED
    private Stream stream;
    private Thread runner;         // the thread that started it; read racily by diagnostics only
    private Failure failure;       // own or taken over: written by the winning completion (see the overview)
    private Outcome outcome;       // likewise
    private long inFlightSince;    // written before IN_FLIGHT is set, read after it is seen

    private volatile Fencing fencing; // null unless released at launch or released behind such an op

    /**
     * The block of one push of {@code def} to {@code host}, to run on {@code ctx} ({@code device}: null
     * for internal ops); {@code listener} is the engine's at push time, or null, and {@code account} the
     * pending-op count the push entered (null where the host keeps none). See {@link PushedOp}.
     */
    public OpBlock(OpDef def, OpHost host, Context ctx, int priority, boolean profiling, long id, OpListener listener,
                   OpAccount account, OpDevice device) {
        super(def, ctx, priority, profiling, id, listener, account, device);
        this.host = host;
        this.waitsAtPush = def.reads().length + def.writes().length + 1;
        WAIT.setRelease(this, waitsAtPush);
    }

    /**
     * Makes this op the op of a replay that {@code links} describe, among {@code peers} (all the ops of
     * that replay, by their index in the graph): it registers only its accesses that are not skipped,
     * and also waits for its predecessors in the replay to complete. An op with no registered access
     * and some predecessor has no push guard ({@link ReplayLinks#guarded()}): its last predecessor
     * dispatches it, and the replaying thread must not call {@link #dropGuard()}. Pusher thread, before
     * registration.
     */
    public void linkReplay(ReplayLinks l, OpBlock[] replayOps) {
        links = l;
        peers = replayOps;
        if (l.registered > 1) {
            keepSpareNodes(l.registered - 1); // made once, used by every push of the block (reuse)
        }
        waitsAtPush = l.registered + l.preds + (l.guarded ? 1 : 0);
        WAIT.setRelease(this, waitsAtPush);
    }

    /**
     * Readies this retired block ({@link #isRetired()}) for the same op of a later replay of its graph:
     * a new id, listener and pending count, and a run's state from scratch; its links, peers and
     * spare queue nodes stay. Pusher thread, before registration; the caller has taken the block's
     * set for itself alone, so nobody else touches it.
     */
    public void reuse(long newId, OpListener newListener, OpAccount newAccount) {
        repush(newId, newListener, newAccount);
        registered = 0;
        grantedAtPush = 0;
        cancelled = null;
        stream = null;
        runner = null;
        failure = null;
        outcome = null;
        inFlightSince = 0;
        waiter = null;
        STATE.setRelease(this, PENDING);
        WAIT.setRelease(this, waitsAtPush);
    }

    /**
     * Whether a replay's block is done with: it finished, and the thread that ran it is done with it
     * ({@link #endRun}). Every other reference to a finished op is dropped before it finishes: its queue
     * nodes have left their variables' queues, its successors were let go, its in-flight entry removed;
     * except, for an op that took part in release at launch ({@link #fencing()} not null), the fence
     * lists of other ops and variables, so such a block is never reused.
     */
    public boolean isRetired() {
        return (word() & (PHASE | RUN_ENDED)) == (FINISHED | RUN_ENDED);
    }

    /**
     * The engine's thread that ran the op (its function, or its skip or refusal) returns and touches it
     * no more; after this and its finish, a replay's block may be reused. A no-op for ops not replayed.
     */
    public void endRun() {
        if (links != null) {
            STATE.getAndBitwiseOr(this, RUN_ENDED);
        }
    }

    /** The replay's links of this op, or null for an op pushed on its own. */
    ReplayLinks links() {
        return links;
    }

    /** A replay's registration appended this op's accesses (not the skipped ones). Pusher thread. */
    void registeredReplay() {
        registered = links.registered;
    }

    /**
     * A replay's registration was refused (a variable of the graph was deleted concurrently): nothing
     * of the replay was registered, and this op will be skipped once its predecessors in the replay are.
     */
    void cancelReplay(RuntimeException refused) {
        cancelled = refused;
        transition(1 << PENDING, PENDING, CANCELLED);
        grantedAtPush = links.registered; // no variable will release it; its predecessors still will
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
        if (drop == waitsAtPush) {
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
        if (waitsAtPush == 1) {
            // Its one predecessor in the replay is all it waits for (no guard, no registration): nothing
            // else touches the counter, and a plain store does, as in dropGuard.
            WAIT.setRelease(this, 0);
            host.ready(this);
        } else if ((int) WAIT.getAndAdd(this, -1) == 1) {
            host.ready(this);
        }
    }

    // ---- release at launch: fences (flags in the word, lists in Fencing) ----------------------------

    /** The op's fence lists, or null if it neither was released at launch nor was released behind such an op. */
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
     * Releases the op's variables now, before its device work is done (its function returned and the
     * work is enqueued): the op is a fence for the ops released behind it until it completes.
     * {@code event} marks the end of that work, for device-side waits, or is null if the device cannot
     * wait on the device. On the op's thread, once, while it runs and before anything can complete it.
     *
     * @throws IllegalStateException if the op is not running
     */
    public void releaseAtLaunch(Event event) {
        fencingForUpdate().setDoneEvent(event); // published to successors by the CAS and the variables' locks
        if (transition(1 << RUNNING, RUNNING, RELEASED_AT_LAUNCH | LAUNCHED) < 0) {
            throw new IllegalStateException(this + " cannot be released at launch: it is not running");
        }
        releaseVariables(true);
    }

    /** Whether the op released its variables at launch ({@link #releaseAtLaunch}). */
    public boolean isReleasedAtLaunch() {
        return (word() & RELEASED_AT_LAUNCH) != 0;
    }

    /** Whether the op was released at launch and has not completed its fence: a fence for successors. */
    public boolean isFence() {
        return (word() & (RELEASED_AT_LAUNCH | DEVICE_DONE)) == RELEASED_AT_LAUNCH;
    }

    /** Whether a fence's completion has set DEVICE_DONE (read under its Fencing's monitor). */
    boolean isDeviceDone() {
        return (word() & DEVICE_DONE) != 0;
    }

    /** Sets DEVICE_DONE: under the Fencing's monitor, on the completing thread, in finishCompletion only. */
    void markDeviceDone() {
        STATE.getAndBitwiseOr(this, DEVICE_DONE);
    }

    /** Records that this op was released behind {@code fence} (an op released at launch). Any thread. */
    void addFence(OpBlock fence) {
        fencingForUpdate().addFence(fence);
    }

    /** Whether fences are waiting for the dispatcher's decision (cheap: a null check when there are none). */
    public boolean hasFences() {
        Fencing f = fencing;
        return f != null && f.hasFences();
    }

    /**
     * The dispatcher's decision for an op released behind fences; call when {@link #hasFences()}, on
     * the thread that took the op's wait counter to zero. Each fence still running is kept for a
     * device-side wait if {@code waitOnDevice} and the fence runs on the op's device and has an event;
     * behind each other one the op is deferred on the host until the fence completes (counted in
     * {@code hostDeferrals}).
     *
     * @return true if the op was deferred: the last fence to complete dispatches it through the host
     */
    public boolean deferBehindFences(boolean waitOnDevice, LongAdder hostDeferrals) {
        Fencing mine = fencing;
        OpBlock[] fences = mine.takeFences();
        if (fences == null) {
            return false;
        }
        // The deferral guard: no fence can dispatch the op before the decision is made.
        STATE.getAndBitwiseOr(this, FENCES_TAKEN);
        WAIT.setRelease(this, 1);
        int kept = 0;
        for (OpBlock f : fences) {
            if (!f.isFence()) {
                continue; // done already
            }
            if (waitOnDevice && f.device() == device() && f.fencing.doneEvent() != null) {
                fences[kept++] = f;
            } else if (f.fencing.deferUntilDeviceDone(this)) {
                hostDeferrals.increment();
            }
        }
        if (kept > 0) {
            mine.keepDeviceFences(kept == fences.length ? fences : Arrays.copyOf(fences, kept));
        }
        return !dropHold();
    }

    /** One more host-side deferral holds the op back. */
    void holdBack() {
        WAIT.getAndAdd(this, 1);
    }

    /** Drops one hold; true if it was the last (the caller dispatches the op). */
    private boolean dropHold() {
        return (int) WAIT.getAndAdd(this, -1) == 1;
    }

    /** A host-side deferral ends (its fence completed); dispatches the op through the host if it was the last. */
    void releaseDeferred() {
        if (dropHold()) {
            host.ready(this);
        }
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

    /**
     * Where the op stands, for diagnostics (meaningless once finished): derived from the state word, and
     * from the wait counter while the op is pending.
     */
    public OpState state() {
        int w = word();
        switch (w & PHASE) {
            case PENDING:
                if ((int) WAIT.getAcquire(this) == 0) {
                    return OpState.QUEUED;
                }
                return (w & FENCES_TAKEN) != 0 ? OpState.DEFERRED : OpState.WAITING;
            default:
                if ((w & LAUNCHED) != 0) {
                    return OpState.ON_DEVICE;
                }
                return (w & IN_FLIGHT) != 0 ? OpState.AWAITING_CALLBACK : OpState.RUNNING;
        }
    }

    // ---- running (worker) -------------------------------------------------------------------------

    /** The exception that cancelled the push (to be thrown to the pusher), or null. */
    public RuntimeException cancellation() {
        return cancelled;
    }

    /** Whether a registration was refused: the op is skipped when it runs. */
    public boolean isCancelled() {
        return (word() & CANCELLED) != 0;
    }

    /** PENDING to RUNNING: marks the op started on {@code s} (may be null), on the calling thread. */
    public void start(Stream s) {
        this.stream = s;
        this.runner = Thread.currentThread();
        int w = (int) STATE.get(this); // the dispatcher owns a pending op: no other writer (see the overview)
        assert (w & PHASE) == PENDING : this + " started twice";
        STATE.setRelease(this, w + (RUNNING - PENDING));
    }

    /**
     * Completes the started op without running it, passing {@code inherited} (may be null) on to its
     * writes.
     */
    public void skip(Failure inherited) {
        int w = transition(1 << RUNNING, DONE, 0);
        if (w < 0) {
            throw new IllegalStateException("op '" + name() + "' was already completed");
        }
        finishCompletion(w, Outcome.SKIPPED, inherited, false, 0);
    }

    @Override
    public void complete() {
        int w = transition(1 << RUNNING, DONE, 0);
        if (w < 0) {
            throw new IllegalStateException(alreadyCompleted("complete()"));
        }
        finishCompletion(w, Outcome.DONE, null, false, 0);
    }

    /**
     * As {@link #complete()}, by the thread that ran the op, as the last thing its run does with it
     * (the engine's runner, after a sync op's function returned): the run ends ({@link #endRun}) in the
     * same state change that finishes the op, so a replay's block costs no extra atomic update to
     * retire. The caller must not touch the op afterwards, and must not call {@code endRun}: a later
     * replay may already be reusing the block.
     *
     * @throws IllegalStateException if the op was already completed (then the run has not ended)
     */
    public void completeEndingRun() {
        int w = transition(1 << RUNNING, DONE, 0);
        if (w < 0) {
            throw new IllegalStateException(alreadyCompleted("complete()"));
        }
        finishCompletion(w, Outcome.DONE, null, false, RUN_ENDED);
    }

    @Override
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        int w = transition(1 << RUNNING, DONE, 0);
        if (w < 0) {
            throw new IllegalStateException(alreadyCompleted("fail(" + error + ")"));
        }
        finishCompletion(w, Outcome.FAILED, new Failure(error, name()), true, 0);
    }

    /**
     * The rest of the completion, on the thread whose completion won ({@code w}: the word it wrote):
     * the outcome and failure, the host's hooks, the release of the variables (or the end of the fence
     * of an op released at launch, whose variables were released then), the pending count, FINISHED.
     *
     * @param own whether {@code f} is the op's own failure (else it is inherited, or null)
     * @param endFlags {@code RUN_ENDED} if the runner's run ends with this completion, else 0
     */
    private void finishCompletion(int w, Outcome o, Failure f, boolean own, int endFlags) {
        outcome = o;
        failure = f;
        host.completed(this, own ? f : null);
        if ((w & RELEASED_AT_LAUNCH) != 0) {
            if (own) {
                // Its variables were released at launch: later users of its outputs must still see this.
                for (Var v : def.writes()) {
                    v.carryFailure(f);
                }
            }
            fencing.deviceDone();
        } else {
            releaseVariables(false);
        }
        if (links != null) {
            finishReplayed();
        }
        OpAccount a = account();
        if (a != null) {
            a.exit();
        }
        finish(endFlags);
    }

    /**
     * The state machine's one CAS: from a phase in {@code fromPhases} (a set of {@code 1 << phase} bits)
     * to phase {@code to}, with {@code flags} added to those it had. The word written, or -1, changing
     * nothing, if the phase was not in {@code fromPhases}.
     */
    private int transition(int fromPhases, int to, int flags) {
        int w = (int) STATE.getVolatile(this);
        while (true) {
            if ((fromPhases & (1 << (w & PHASE))) == 0) {
                return -1;
            }
            int next = (w & ~PHASE) | to | flags;
            int seen = (int) STATE.compareAndExchange(this, w, next);
            if (seen == w) {
                return next;
            }
            w = seen; // a flag was set meanwhile: retry on the new word
        }
    }

    /**
     * RUNNING to RUNNING|IN_FLIGHT: the op's function returned before its completion (a callback, or
     * device work if {@code launched}, is to come), and the caller put it in its in-flight registry at
     * {@code sinceNanos}. True if flagged (the host's completion hook will see {@link #isInFlight()});
     * false if the op completed already, and the caller must take it out of its registry itself.
     */
    public boolean markInFlight(long sinceNanos, boolean launched) {
        inFlightSince = sinceNanos; // published by the CAS
        return transition(1 << RUNNING, RUNNING, launched ? IN_FLIGHT | LAUNCHED : IN_FLIGHT) >= 0;
    }

    /** Whether {@link #markInFlight} flagged the op (it stays flagged after completion). */
    public boolean isInFlight() {
        return (word() & IN_FLIGHT) != 0;
    }

    /** When the op was flagged in flight ({@link System#nanoTime()}); valid once {@link #isInFlight()}. */
    public long inFlightSince() {
        return inFlightSince;
    }

    /** Whether the op has started (or completed). */
    public boolean isStarted() {
        return (word() & PHASE) != PENDING;
    }

    /** Whether completion has been signalled. */
    public boolean isCompleted() {
        return (word() & PHASE) >= DONE;
    }

    private int word() {
        return (int) STATE.getAcquire(this);
    }

    private String alreadyCompleted(String call) {
        return "op '" + name() + "' was already completed: " + call
                + " is a second completion; call complete() or fail() exactly once per run";
    }

    /** The failure attached to the op's writes at completion (own or taken over), or null. */
    public Failure failureRecord() {
        return failure;
    }

    /**
     * The replay's part of a replayed op's completion: its writes that skipped their variables' queues
     * count in {@link Var#version()} and carry its failure (as a registered write's completion does),
     * then the ops of the replay that wait for it are let go. The variable needs no lock: the graph's
     * last write of it, registered, holds it, and the replay's edges order every access in between.
     */
    private void finishReplayed() {
        if (!isCancelled()) {
            Var[] writes = def.writes();
            int r = def.reads().length;
            for (int i = 0; i < writes.length; i++) {
                if (links.skipped[r + i]) {
                    writes[i].countWrites(1);
                    if (failure != null) {
                        writes[i].carryFailure(failure);
                    }
                }
            }
        }
        for (int s : links.successors) {
            peers[s].release(this);
        }
    }

    /**
     * Releases the op's registrations (none for a cancelled op), at completion or at launch; successors
     * may be dispatched on this thread.
     */
    private void releaseVariables(boolean atLaunch) {
        if (links != null) {
            releaseReplayedVariables(atLaunch);
            return;
        }
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        int n = registered;
        for (int i = 0; i < reads.length && n > 0; i++, n--) {
            reads[i].completeRead(this, atLaunch);
        }
        for (int i = 0; i < writes.length && n > 0; i++, n--) {
            writes[i].completeWrite(this, failure, atLaunch);
        }
    }

    /** As {@link #releaseVariables}, for a replayed op: only its registered accesses. */
    private void releaseReplayedVariables(boolean atLaunch) {
        if (registered == 0) {
            return; // cancelled
        }
        Var[] reads = def.reads();
        Var[] writes = def.writes();
        boolean[] skipped = links.skipped;
        for (int i = 0; i < reads.length; i++) {
            if (!skipped[i]) {
                reads[i].completeRead(this, atLaunch);
            }
        }
        for (int i = 0; i < writes.length; i++) {
            if (!skipped[reads.length + i]) {
                writes[i].completeWrite(this, failure, atLaunch);
            }
        }
    }

    /**
     * DONE to FINISHED (with {@code flags}: RUN_ENDED or none), last in finishCompletion; wakes a thread
     * blocked in {@link #awaitFinished}.
     */
    private void finish(int flags) {
        if (transition(1 << DONE, FINISHED, flags) < 0) {
            throw new AssertionError(this + " finished twice"); // only the completing thread writes the word after DONE
        }
        Thread t = waiter; // after the CAS: see the overview (wake-up)
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Whether the op is finished: its completion has run to the end. */
    public boolean isFinished() {
        return (word() & PHASE) == FINISHED;
    }

    /**
     * Blocks until the op is finished, or until the deadline. One thread at a time may wait.
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
