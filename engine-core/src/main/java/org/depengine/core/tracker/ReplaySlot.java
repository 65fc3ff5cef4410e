package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An op's place in a recorded graph's replays, owned by the graph's block pool ({@code core.replay}),
 * which makes one per op of a block set and keeps it with that block for every replay that reuses the
 * set; the op only carries it ({@link OpBlock#slot()}). An op pushed on its own has none.
 *
 * <p>What the graph fixed at capture about the op (shared by every set): which of its accesses are
 * registered on their variables' queues, and the ops of the same replay it waits for and lets go (the
 * rule that decides both is written once, in {@code core.replay.ReplayPlan}). What belongs to this set:
 * the set itself (the op's peers, indexed as in the graph), the queue nodes of the op's registrations
 * after its first (made once, used by every push of the block), the replay that pushed it last, and
 * whether the thread that ran it is done with it.
 *
 * <p>The tracker's side of a replayed op: its latch starts at {@link #latchStart()}; its registration
 * appends only {@link #registers registered} accesses ({@link Registration#registerReplay}); its
 * completion releases those, then {@link #completed} counts its other writes and lets its successors go.
 */
public final class ReplaySlot {
    private static final VarHandle RUN_ENDED;

    static {
        try {
            RUN_ENDED = MethodHandles.lookup().findVarHandle(ReplaySlot.class, "runEnded", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object graph;
    private final boolean[] skipped;   // by access (the op's reads, then its writes): true if not registered
    private final int registered;      // accesses registered on their variables' queues
    private final int preds;           // ops of the same replay this op waits for
    private final int[] successors;    // indexes, in the graph, of the ops that wait for this one
    private final boolean guarded;     // whether the op has a push guard (see guarded())
    private final OpBlock[] peers;     // the block set, indexed as in the graph
    private QueueNode.ExtraWrite[] spareNodes; // the op's queue nodes after its first; made at bind
    private int spareUsed;             // pusher only: how many of spareNodes this push used
    private long replay;               // the number of the replay that pushed the op last, from 1
    @SuppressWarnings("unused") // accessed through RUN_ENDED
    private volatile boolean runEnded;

    /**
     * @param graph the graph whose replays push the op
     * @param skipped per access (reads, then writes, as in the op's definition): true if the access is
     *     not registered on its variable's queue (shared: not copied, not modified)
     * @param preds how many ops of the same replay the op waits for (distinct)
     * @param successors the indexes of the ops of the same replay that wait for it (distinct; shared)
     * @param peers the block set the op belongs to, indexed as in the graph (filled by the caller)
     */
    public ReplaySlot(Object graph, boolean[] skipped, int preds, int[] successors, OpBlock[] peers) {
        this.graph = graph;
        this.skipped = skipped;
        int n = 0;
        for (boolean s : skipped) {
            if (!s) {
                n++;
            }
        }
        this.registered = n;
        this.preds = preds;
        this.successors = successors;
        // An op with no registered access and some predecessors needs no guard: every registration of the
        // replay is done before its first guard drops, and nothing of the replay starts before that, so
        // its last predecessor's release is what dispatches it.
        this.guarded = n > 0 || preds == 0;
        this.peers = peers;
    }

    /** Makes {@code op}'s spare queue nodes, once, when the slot is given to it ({@link OpBlock#linkReplay}). */
    void bind(OpBlock op) {
        if (registered > 1) {
            spareNodes = new QueueNode.ExtraWrite[registered - 1];
            for (int i = 0; i < spareNodes.length; i++) {
                spareNodes[i] = new QueueNode.ExtraWrite(op);
            }
        }
    }

    /** Readies the slot for its block's next push, by replay number {@code n}; the caller holds the block alone. */
    void repush(long n) {
        replay = n;
        spareUsed = 0;
        RUN_ENDED.setRelease(this, false);
    }

    /** The graph whose replays push the op. */
    public Object graph() {
        return graph;
    }

    /** The number of the replay that pushed the op last, from 1. */
    public long replay() {
        return replay;
    }

    /** Whether access {@code i} (the op's reads, then its writes) is registered on its variable's queue. */
    public boolean registers(int i) {
        return !skipped[i];
    }

    /** The number of registered accesses. */
    int registered() {
        return registered;
    }

    /**
     * Whether the op has a push guard, dropped by the replaying thread ({@link OpBlock#dropGuard}); an
     * op without one is dispatched by its last predecessor's release.
     */
    public boolean guarded() {
        return guarded;
    }

    /** Where the op's latch starts: its registrations, its predecessors in the replay and its guard. */
    int latchStart() {
        return registered + preds + (guarded ? 1 : 0);
    }

    /** The next spare queue node of the op (pusher, under a variable's lock). */
    QueueNode.ExtraWrite spareNode() {
        return spareNodes[spareUsed++];
    }

    /**
     * The replay's part of the op's completion, after its registered accesses were released: its writes
     * that skipped their variables' queues count in {@link Var#version()} and carry its failure (as a
     * registered write's completion does), then the ops of the replay that wait for it are let go. The
     * variables need no lock: the graph's last write of each, registered, holds it, and the replay's
     * edges order every access in between.
     */
    void completed(OpBlock op, Failure failure) {
        if (!op.isCancelled()) {
            Var[] writes = op.def().writes();
            int r = op.def().reads().length;
            for (int i = 0; i < writes.length; i++) {
                if (skipped[r + i]) {
                    writes[i].countWrites(1);
                    if (failure != null) {
                        writes[i].carryFailure(failure);
                    }
                }
            }
        }
        for (int s : successors) {
            peers[s].release(op);
        }
    }

    /**
     * The engine's thread that ran the op (its function, or its skip or refusal) returns and touches it
     * no more: once the op is finished too, its block may be reused ({@link OpBlock#isRetired()}).
     */
    public void endRun() {
        RUN_ENDED.setRelease(this, true);
    }

    /** Whether {@link #endRun} was called since the block's last push. */
    boolean runEnded() {
        return (boolean) RUN_ENDED.getAcquire(this);
    }
}
