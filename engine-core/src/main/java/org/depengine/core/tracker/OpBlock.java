package org.depengine.core.tracker;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.EngineDiagnostics.OpState;
import org.depengine.api.RunContext;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.listen.OpListener;

/**
 * One pushed run of an op: the unit the tracker and the workers move around. One object per push, in
 * parts, each in a class of its own and small enough to read in one sitting:
 * <ol>
 *   <li>{@link PushedOp}: what the push fixed (definition, context, id, listener, route), and the
 *   op's first queue node;</li>
 *   <li>{@link OpLatch}: its registration on its variables and its readiness latch;</li>
 *   <li>{@link OpLife}: its completion core, one state word and one {@code finishCompletion}; the
 *   transition table is {@link OpTransition};</li>
 *   <li>{@link FenceState}, a separate object allocated only for an op that takes part in release at
 *   launch;</li>
 *   <li>{@link ReplaySlot}, a separate object owned by a recorded graph's block pool, only for an op of
 *   a replay.</li>
 * </ol>
 * The first three are layers of this one object, so that a push allocates one block (and this class
 * is also the op's {@link RunContext} and, for an async op, its {@link CallbackOnComplete}); this class
 * adds what joins them: the user's callback, release at launch, and a replay block's reuse.
 */
public final class OpBlock extends OpLife implements RunContext, CallbackOnComplete {
    private boolean writesCounted; // runner only; see countsItsWrites()

    /**
     * The block of one push of {@code def} to {@code host}, to run on {@code ctx} ({@code device}: null
     * for internal ops); {@code listener} is the engine's at push time, or null, and {@code account} the
     * pending-op count the push entered (null where the host keeps none).
     */
    public OpBlock(OpDef def, OpHost host, Context ctx, int priority, boolean profiling, long id, OpListener listener,
                   OpAccount account, OpDevice device) {
        super(def, host, ctx, priority, profiling, id, listener, account, device);
    }

    // ---- the user's callback (an async op's; a sync op completes when its function returns) ---------

    @Override
    public void complete() {
        if (!claimForCallback("complete()")) {
            throw new IllegalStateException(alreadyCompleted("complete()"));
        }
        completeClaimed(null);
    }

    @Override
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        if (!claimForCallback("fail(" + error + ")")) {
            throw new IllegalStateException(alreadyCompleted("fail(" + error + ")"));
        }
        completeClaimed(error);
    }

    private boolean claimForCallback(String call) {
        if (def.isSync()) {
            // Its runner completes it, claiming nothing (OpLife): a callback may not race it.
            throw new IllegalStateException("op '" + name() + "' is synchronous: it completes when its function returns, so "
                    + call + " is refused; only an async op (pushAsync) is completed through its callback");
        }
        return claim();
    }

    private String alreadyCompleted(String call) {
        return "op '" + name() + "' was already completed: " + call
                + " is a second completion; call complete() or fail() exactly once per run";
    }

    // ---- release at launch (the fence part) ---------------------------------------------------------

    /**
     * Releases the op's variables now, before its device work is done (its function returned and the
     * work is enqueued): the op is a fence for the ops released behind it until it completes.
     * {@code event} marks the end of that work, for device-side waits, or is null if the device cannot
     * wait on the device. On the op's thread, once, while it runs and before anything can complete it.
     *
     * @throws IllegalStateException if the op is not running
     */
    public void releaseAtLaunch(Event event) {
        if ((word() & PHASE) != RUNNING) {
            throw new IllegalStateException(this + " cannot be released at launch: it is not running");
        }
        fenceForUpdate().launch(event); // published to successors by the variables' locks and their latches
        releaseRegistrations(null, true);
    }

    /** Whether the op released its variables at launch ({@link #releaseAtLaunch}). */
    public boolean isReleasedAtLaunch() {
        FenceState f = fence();
        return f != null && f.isLaunched();
    }

    /** Whether the op was released at launch and has not completed: a fence for successors. */
    public boolean isFence() {
        FenceState f = fence();
        return f != null && f.isFence();
    }

    /** Records that this op was released behind {@code fence} (an op released at launch). Any thread. */
    void addFence(OpBlock fence) {
        fenceForUpdate().addFence(fence);
    }

    /** Whether fences wait for the dispatcher's decision (cheap: a null check when there are none). */
    public boolean hasFences() {
        FenceState f = fence();
        return f != null && f.hasFences();
    }

    /**
     * The dispatcher's decision for an op released behind fences ({@link FenceState#deferBehindFences});
     * call when {@link #hasFences()}, on the thread that took the op's latch to zero.
     *
     * @return true if the op was deferred: the last fence to complete dispatches it through the host
     */
    public boolean deferBehindFences(boolean waitOnDevice, LongAdder hostDeferrals) {
        return fence().deferBehindFences(waitOnDevice, hostDeferrals);
    }

    // ---- a replay run as one op ----------------------------------------------------------------------

    /**
     * The op's function counts each write of its run in {@link Var#version()} itself, as it makes it
     * (a replay run as one op, {@code core.replay.WholeReplay}, after each of its ops), so the op's
     * completion counts none. Called by the function, on the runner, which also completes the op (a
     * synchronous op that was not launched).
     */
    public void countsItsWrites() {
        writesCounted = true;
    }

    /** Whether {@link #countsItsWrites()} was called in this run: the completion counts no write. */
    boolean writesCounted() {
        return writesCounted;
    }

    // ---- a replay's block ---------------------------------------------------------------------------

    /**
     * Makes this the op of replay {@code replay} (from 1), in slot {@code s} of its graph's block pool
     * (see {@link ReplaySlot}). Pusher thread, before registration.
     */
    public void linkReplay(ReplaySlot s, long replay) {
        s.bind(this);
        s.repush(replay);
        link(s);
    }

    /**
     * Readies this retired block ({@link #isRetired()}) for the same op of replay {@code replay} of its
     * graph: a new id, listener and pending count, and a run's state from scratch; its slot stays.
     * Pusher thread, before registration; the caller took the block's set for itself alone.
     */
    public void reuse(long newId, long replay, OpListener newListener, OpAccount newAccount) {
        repush(newId, newListener, newAccount);
        slot.repush(replay);
        rearm();
        reuseLife();
    }

    /**
     * Whether a replay's block is done with: it finished, and the thread that ran it is done with it
     * ({@link #endRun}). Every other reference to a finished op is gone before it finishes (its queue
     * nodes have left their variables' queues, its successors were let go, its in-flight entry removed),
     * except, for an op that took part in release at launch ({@link #fence()} not null), the fence lists
     * of other ops and variables: such a block is never reused.
     */
    public boolean isRetired() {
        ReplaySlot s = slot;
        return s != null && isFinished() && s.runEnded();
    }

    /**
     * The engine's thread that ran the op (its function, or its skip or refusal) returns and touches it
     * no more; a no-op for an op pushed on its own. Last, in the runner's {@code finally}.
     */
    public void endRun() {
        ReplaySlot s = slot;
        if (s != null) {
            s.endRun();
        }
    }

    // ---- diagnostics, RunContext, OpInfo ------------------------------------------------------------

    /** Where the op stands, for diagnostics (meaningless once finished). */
    public OpState state() {
        int w = word();
        if ((w & PHASE) == PENDING) {
            FenceState f = fence();
            if (f != null && f.isDeferred()) {
                return OpState.DEFERRED;
            }
            return waitCount() == 0 ? OpState.QUEUED : OpState.WAITING;
        }
        if ((w & LAUNCHED) != 0) {
            return OpState.ON_DEVICE;
        }
        return (w & IN_FLIGHT) != 0 ? OpState.AWAITING_CALLBACK : OpState.RUNNING;
    }

    @Override
    public Stream stream() {
        return startedStream();
    }

    @Override
    public Throwable failure() {
        Failure f = failureRecord();
        return f == null ? null : f.error();
    }
}
