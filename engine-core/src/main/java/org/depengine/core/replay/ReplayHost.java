package org.depengine.core.replay;

import org.depengine.api.Context;
import org.depengine.api.listen.OpListener;
import org.depengine.core.tracker.OpAccount;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDevice;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.Registration;

/**
 * What a recorded graph's replay needs of its engine, and nothing more: the engine's side of a push
 * (the pending count and ids, the listener, devices, the dispatch policy's route and dispatch) with the
 * graph doing the rest (its plan, its block pool, its one registration step). Implemented by the
 * engine's dispatch core.
 */
public interface ReplayHost {
    /** The engine's name, for messages. */
    String name();

    /** Whether the engine is closed (then nothing is pushed). */
    boolean isClosed();

    /** Pushes every op that bulks hold (the replay's ops come after them). */
    void flushBulks();

    /** The op the calling thread is running, or null. */
    OpBlock currentOp();

    /**
     * Counts {@code n} new ops as pushed, at once, and reserves {@code n} consecutive op ids, the first
     * returned in {@link Entry#firstId()}. Each op exits {@link Entry#account()} when finished; a replay
     * that pushes none of them after all exits it {@code n} times.
     */
    Entry enter(int n);

    /**
     * The {@code n} ids {@link #enter} reserved went to no op: the replay failed before registering
     * them (the engine's metrics count ops pushed by ids handed out).
     */
    void notPushed(int n);

    /** Counts a replay's {@code n} ops, all made and about to be registered, in the engine's metrics. */
    void replayed(int n);

    /** The ops' pending-count entry and the first of their ids. */
    record Entry(OpAccount account, long firstId) {
    }

    /**
     * Whether the engine runs every ready op on its pusher, which waits for it (its dispatch policy's
     * {@link org.depengine.core.DispatchPolicy#runsOnPusher()}): then any replay may run as one op, not
     * only a chain's.
     */
    boolean runsOnPusher();

    /** An op of a replay run as one op failed itself: counted, kept for {@code waitForAll}; returns its failure. */
    Failure opFailed(Throwable error, String opName);

    /** An op of a replay run as one op was skipped (the skip rule): counted. */
    void opSkipped();

    /** The listener ops pushed now report to, or null if nobody listens. */
    OpListener listener();

    /** Tells {@code l}, the listener of the replay's ops, that {@code op} was pushed (if it wants to know). */
    void reportPushed(OpBlock op, OpListener l);

    /** What ops carry as their device for {@code ctx} (opened on first use; throws as a push would). */
    OpDevice opDevice(Context ctx);

    /** What the engine's ops call back into. */
    OpHost opHost();

    /** The engine's registration (see {@link Registration#registerReplay}). */
    Registration registration();

    /** Routes a new or reused block, before registration, as the engine's dispatch policy does for a push. */
    void route(OpBlock op);

    /**
     * After the replay's registration, for each op in graph order: drops its guard if it has one
     * ({@code guarded}) and dispatches it if ready, then the dispatch policy's after-push step.
     */
    void launch(OpBlock op, boolean guarded);
}
