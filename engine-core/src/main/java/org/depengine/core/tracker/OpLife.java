package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.Context;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpInfo.Outcome;
import org.depengine.api.listen.OpListener;

/**
 * The third part of an op ({@link OpBlock}): its completion core, as {@code FutureTask}'s. One state
 * word holds the phase, {@code PENDING -> RUNNING -> DONE -> FINISHED}, and two flags; every change of
 * it is a row of {@link OpTransition}, the one transition table. One method, {@code finishCompletion},
 * runs the rest of every completion, on the thread whose completion it is: the outcome and failure, the
 * engine's hooks ({@link OpHost#completed}), the release of the variables (or, for an op released at
 * launch, the end of its fence), the replay's part ({@link ReplaySlot#completed}), the pending count it
 * entered, and FINISHED. The engine only observes.
 *
 * <p>Two ways in, by who may complete the op:
 * <ul>
 *   <li><b>The runner alone</b> ({@link #completeRun}, {@link #skip}): an op whose completion it never
 *   handed to anyone. A sync op not launched (its function has no callback), an op skipped or refused
 *   before its function ran. No other thread can complete it, so no claim is needed: the phase goes
 *   from RUNNING to FINISHED when the completion is done.</li>
 *   <li><b>Claimed</b> ({@link #claim}, then {@link #completeClaimed}): an op whose completion was
 *   handed out, to an async op's callback, or to the device that reports a launched op done. Of every
 *   completer, racing on any threads, exactly one claims it (RUNNING to DONE); every other gets
 *   {@code false} and changes nothing, as {@code FutureTask.set} does.</li>
 * </ul>
 *
 * <p>Contract: actions before {@link #start}, before a completion, and before the finish happen-before
 * those of a thread that then sees {@link #isStarted()}, {@link #isCompleted()} and {@link #isFinished()}
 * (or returns from {@link #awaitFinished}). {@link #markInFlight} succeeds only before a claim: either
 * the host's completion hook sees {@link #isInFlight()}, or it returns false; never both, never neither.
 */
abstract sealed class OpLife extends OpLatch permits OpBlock {
    /*
     * Implementation overview.
     *
     * The word: bits 0-1 the phase, IN_FLIGHT and LAUNCHED above (see OpTransition). START is a release
     * store: nothing else writes the word while the op is PENDING and owned by its dispatcher (the latch
     * orders the dispatch after every write of the push). CLAIM and IN_FLIGHT are CAS on RUNNING, so one
     * of them comes first: if the flag does, the host's completion hook sees it and unregisters the op;
     * else markInFlight fails and its caller unregisters the op it had registered. After a claim only the
     * claimer writes the word (markInFlight and other claims fail on DONE), and on FINISH_RUN's path only
     * the runner does: the finish is a store.
     *
     * The outcome and the failure are written by the completing thread before the finish: read on that
     * thread (hooks, listener) or after isFinished. Queries read acquire.
     *
     * Waiting: only one thread may ever wait for an op, its awaiter, named at push (the naive engine's
     * pusher, a wait's caller). awaitFinished writes waiter (volatile), then reads the word (volatile);
     * the finish, unless it runs on the awaiter itself or the op has none (then nobody can be parked on
     * it), writes the word with a volatile store, then reads waiter. Both pairs are in the
     * synchronization order, so the waiter sees FINISHED or the finishing thread sees the waiter and
     * unparks it. So an op nobody can await finishes with two plain stores and no atomic update.
     */
    static final int PHASE = 0b11;
    static final int PENDING = 0;
    static final int RUNNING = 1;
    static final int DONE = 2;
    static final int FINISHED = 3;
    static final int IN_FLIGHT = 1 << 2; // in the engine's in-flight registry: its function returned before completion
    static final int LAUNCHED = 1 << 3;  // ... because its device work is enqueued and not done

    private static final VarHandle STATE;
    private static final VarHandle FENCE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(OpLife.class, "state", int.class);
            FENCE = l.findVarHandle(OpLife.class, "fence", FenceState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile Thread waiter;  // the awaiter, while it waits in awaitFinished
    private Thread awaiter;          // the one thread that may wait for the op, or null; set before registration
    private Failure failure;         // own or taken over: written by the completing thread (see the overview)
    private Outcome outcome;         // likewise
    private Stream stream;
    private Thread runner;           // the thread that started it; read racily by diagnostics only
    @SuppressWarnings("unused") // accessed through FENCE
    private volatile FenceState fence; // null unless the op takes part in release at launch

    OpLife(OpDef def, OpHost host, Context ctx, int priority, boolean profiling, long id, OpListener listener,
           OpAccount account, OpDevice device) {
        super(def, host, ctx, priority, profiling, id, listener, account, device);
    }

    /**
     * Names the calling thread as the one thread that may wait for this op ({@link #awaitFinished}):
     * the pusher, before registration, where it will wait (the naive engine, a wait's internal op).
     */
    public void expectWaiter() {
        awaiter = Thread.currentThread();
    }

    /** PENDING to RUNNING: marks the op started on {@code s} (may be null), on the calling thread. */
    public void start(Stream s) {
        this.stream = s;
        this.runner = Thread.currentThread();
        int w = (int) STATE.get(this); // the dispatcher owns a pending op: no other writer (see the overview)
        assert (w & PHASE) == PENDING : this + " started twice";
        int next = (w & ~PHASE) | RUNNING;
        STATE.setRelease(this, next);
        OpTransition.START.taken(w, next);
    }

    /**
     * RUNNING to DONE, for a completer of an op whose completion was handed out: true for exactly one
     * of them, which must then call {@link #completeClaimed}; false, changing nothing, for every other.
     *
     * @throws IllegalStateException if the op has not started (nothing can have its completion yet)
     */
    public boolean claim() {
        int w = (int) STATE.getVolatile(this);
        while (true) {
            int phase = w & PHASE;
            if (phase != RUNNING) {
                if (phase == PENDING) {
                    throw new IllegalStateException(this + " was completed before it started");
                }
                OpTransition.CLAIM_LOST.taken(w, w);
                return false;
            }
            int next = (w & ~PHASE) | DONE;
            int seen = (int) STATE.compareAndExchange(this, w, next);
            if (seen == w) {
                OpTransition.CLAIM.taken(w, next);
                return true;
            }
            w = seen; // a flag was set meanwhile: retry on the new word
        }
    }

    /** The claimer's completion ({@link #claim} returned true): done if {@code error} is null, else failed with it. */
    public void completeClaimed(Throwable error) {
        if (error == null) {
            finishCompletion(Outcome.DONE, null, false, true);
        } else {
            finishCompletion(Outcome.FAILED, new Failure(error, name()), true, true);
        }
    }

    /**
     * The runner completes an op whose completion it never handed out (see the class comment): done if
     * {@code error} is null, else failed with it. On the thread that started the op, once.
     */
    public void completeRun(Throwable error) {
        assert runner == Thread.currentThread() && (word() & PHASE) == RUNNING : this + ": not the runner's to complete";
        if (error == null) {
            finishCompletion(Outcome.DONE, null, false, false);
        } else {
            finishCompletion(Outcome.FAILED, new Failure(error, name()), true, false);
        }
    }

    /**
     * The runner completes the started op without running it, passing {@code inherited} (may be null)
     * on to its writes: the skip rule, before the op's function ran.
     */
    public void skip(Failure inherited) {
        assert runner == Thread.currentThread() && (word() & PHASE) == RUNNING : this + ": not the runner's to skip";
        finishCompletion(Outcome.SKIPPED, inherited, false, false);
    }

    /**
     * The rest of every completion, on the completing thread: outcome and failure, the host's hooks,
     * the release of the variables (or the end of the fence of an op released at launch, whose
     * variables were released then), the replay's part, the pending count, FINISHED.
     *
     * @param own whether {@code f} is the op's own failure (else it is inherited, or null)
     * @param claimed whether the op was claimed (DONE) or is completed by its runner alone (RUNNING)
     */
    private void finishCompletion(Outcome o, Failure f, boolean own, boolean claimed) {
        outcome = o;
        failure = f;
        OpBlock op = op();
        host.completed(op, own ? f : null);
        FenceState fs = fence;
        if (fs != null && fs.isLaunched()) {
            if (own) {
                // Its variables were released at launch: later users of its outputs must still see this.
                for (Var v : def.writes()) {
                    v.carryFailure(f);
                }
            }
            fs.deviceDone();
        } else {
            releaseRegistrations(f, false);
        }
        ReplaySlot s = slot;
        if (s != null) {
            s.completed(op, f);
        }
        OpAccount a = account();
        if (a != null) {
            a.exit();
        }
        finish(claimed);
    }

    /** FINISHED, last in finishCompletion; wakes the awaiter if it may be parked (see the overview). */
    private void finish(boolean claimed) {
        int w = (int) STATE.get(this); // only this thread writes the word now (see the overview)
        int next = (w & ~PHASE) | FINISHED;
        Thread a = awaiter;
        if (a == null || a == Thread.currentThread()) {
            STATE.setRelease(this, next); // nobody else may wait for the op: no one to wake
        } else {
            STATE.setVolatile(this, next);
            Thread t = waiter; // after the volatile store: see the overview (waiting)
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        (claimed ? OpTransition.FINISH_CLAIMED : OpTransition.FINISH_RUN).taken(w, next);
    }

    /**
     * RUNNING to RUNNING|IN_FLIGHT: the op's function returned before its completion (a callback, or
     * device work if {@code launched}, is to come), and the caller put it in its in-flight registry
     * (which keeps the time, so that no op carries a field for it). True if flagged (the host's completion hook will see {@link #isInFlight()});
     * false if the op was claimed already, and the caller must take it out of its registry itself.
     */
    public boolean markInFlight(boolean launched) {
        int flags = launched ? IN_FLIGHT | LAUNCHED : IN_FLIGHT;
        int w = (int) STATE.getVolatile(this);
        while (true) {
            if ((w & PHASE) != RUNNING) {
                OpTransition.IN_FLIGHT_LATE.taken(w, w);
                return false;
            }
            int seen = (int) STATE.compareAndExchange(this, w, w | flags);
            if (seen == w) {
                OpTransition.IN_FLIGHT.taken(w, w | flags);
                return true;
            }
            w = seen;
        }
    }

    /**
     * A retired replay block's word back to PENDING and its run's fields cleared, for the next push
     * (see {@link OpBlock#reuse}). The caller took the block for itself alone: no other thread touches it.
     */
    void reuseLife() {
        int w = (int) STATE.get(this);
        failure = null;
        outcome = null;
        stream = null;
        runner = null;
        awaiter = null;
        waiter = null;
        STATE.setRelease(this, PENDING);
        OpTransition.REUSE.taken(w, PENDING);
    }

    int word() {
        return (int) STATE.getAcquire(this);
    }

    /** Whether {@link #markInFlight} flagged the op (it stays flagged after completion). */
    public boolean isInFlight() {
        return (word() & IN_FLIGHT) != 0;
    }

    /** Whether the op was launched on a device: flagged in flight for device work ({@link #markInFlight} with {@code launched}). */
    public boolean wasLaunched() {
        return (word() & LAUNCHED) != 0;
    }

    /** Whether the op has started (or completed). */
    public boolean isStarted() {
        return (word() & PHASE) != PENDING;
    }

    /** Whether a completion was claimed or the op finished. */
    public boolean isCompleted() {
        return (word() & PHASE) >= DONE;
    }

    /** Whether the op is finished: its completion has run to the end. */
    public boolean isFinished() {
        return (word() & PHASE) == FINISHED;
    }

    /**
     * Blocks until the op is finished, or until the deadline. Only its awaiter ({@link #expectWaiter})
     * may call it.
     *
     * @param deadlineNanos a {@link System#nanoTime()} deadline, or {@link Long#MAX_VALUE} for none
     * @return true when finished; false on timeout
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if the calling thread is not the op's awaiter
     */
    public boolean awaitFinished(long deadlineNanos) throws InterruptedException {
        if (isFinished()) {
            return true;
        }
        if (Thread.currentThread() != awaiter) {
            throw new IllegalStateException(Thread.currentThread().getName() + " waits for " + this
                    + ", which only its awaiter may wait for (" + awaiter + ")");
        }
        waiter = Thread.currentThread();
        try {
            // A volatile read after the volatile write of waiter: see the overview (waiting).
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

    // ---- the fence part (release at launch): allocated only for an op that takes part --------------

    /** The op's fence part, or null if it neither was released at launch nor was released behind such an op. */
    public FenceState fence() {
        return fence;
    }

    /** The fence part, made on first use: two releasing threads may race to add the first fence. */
    FenceState fenceForUpdate() {
        FenceState f = fence;
        if (f != null) {
            return f;
        }
        FenceState mine = new FenceState(op());
        FenceState won = (FenceState) FENCE.compareAndExchange(this, (FenceState) null, mine);
        return won != null ? won : mine;
    }

    // ---- what the run left --------------------------------------------------------------------------

    /** The thread that started the op, or null if not started (a racy read: for diagnostics only). */
    public Thread runner() {
        return runner;
    }

    /** The stream the op started on, or null (for fences: the stream its device work was enqueued on). */
    public Stream startedStream() {
        return stream;
    }

    /** The failure attached to the op's writes at completion (own or taken over), or null. */
    public Failure failureRecord() {
        return failure;
    }

    /** How the op ended; null until its completion began (read on the completing thread or once finished). */
    public Outcome outcome() {
        return outcome;
    }
}
