package org.depengine.core;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Graph;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.Var;

/**
 * A recorded op sequence: {@link #replay()} hands it to its engine ({@link AbstractEngine#replay}),
 * which pushes each op again. Immutable apart from the replay counter and the kept block sets;
 * thread-safe.
 *
 * <p><b>Block sets.</b> A replay's ops are a set of {@link OpBlock}s, one per op, indexed as in the
 * graph (the array is also each block's peers). The graph keeps up to {@link #KEPT_SETS} sets of
 * earlier replays; a replay takes one for itself alone ({@link #takeBlocks}) only if every block of it
 * is retired ({@link OpBlock#isRetired}: finished, and its runner done with it), and reuses its blocks;
 * else it makes a new set, and offers it back afterwards ({@link #giveBack}). So a replay never waits
 * for an older one to free its blocks, an op of replay k+1 still waits only for the ops it conflicts
 * with, and replays allocate no block while no more than {@code KEPT_SETS} of them are in flight.
 */
final class RecordedGraph implements Graph {
    private final AbstractEngine engine;
    private final RecordedOp[] ops;
    /** Each variable the graph uses, once, with the first op using it (for the deletion check's message). */
    private final Var[] vars;
    private final OpDef[] firstUser;
    private final AtomicLong replays = new AtomicLong();
    private final ReplayPlan plan;
    /** How many block sets the graph keeps for later replays. */
    static final int KEPT_SETS = 4;
    /** Kept block sets, null where none: a set is in one slot, or taken by one replay, never both. */
    private final AtomicReferenceArray<OpBlock[]> kept = new AtomicReferenceArray<>(KEPT_SETS);

    RecordedGraph(AbstractEngine engine, RecordedOp[] ops) {
        this.engine = engine;
        this.ops = ops;
        Map<Var, OpDef> seen = new IdentityHashMap<>();
        for (RecordedOp r : ops) {
            for (Var v : r.def().reads()) {
                seen.putIfAbsent(v, r.def());
            }
            for (Var v : r.def().writes()) {
                seen.putIfAbsent(v, r.def());
            }
        }
        this.vars = seen.keySet().toArray(new Var[0]);
        this.firstUser = new OpDef[vars.length];
        for (int i = 0; i < vars.length; i++) {
            firstUser[i] = seen.get(vars[i]);
        }
        this.plan = new ReplayPlan(ops);
    }

    /** What capture computed for the replays: each op's registered accesses and edges. */
    ReplayPlan plan() {
        return plan;
    }

    @Override
    public void replay() {
        engine.replay(this);
    }

    @Override
    public int size() {
        return ops.length;
    }

    @Override
    public long replays() {
        return replays.get();
    }

    RecordedOp[] ops() {
        return ops;
    }

    /**
     * A kept block set whose every block is retired, now the caller's alone; or null if there is none
     * (the sets still in use stay kept).
     */
    OpBlock[] takeBlocks() {
        for (int i = 0; i < KEPT_SETS; i++) {
            OpBlock[] s = kept.getAndSet(i, null);
            if (s == null) {
                continue;
            }
            if (retired(s)) {
                return s;
            }
            kept.compareAndSet(i, null, s); // still in use: kept (dropped if a set was given back meanwhile)
        }
        return null;
    }

    /** Offers the block set of a replay just pushed to later replays; dropped if all slots are taken. */
    void giveBack(OpBlock[] set) {
        for (int i = 0; i < KEPT_SETS; i++) {
            if (kept.compareAndSet(i, null, set)) {
                return;
            }
        }
    }

    private static boolean retired(OpBlock[] set) {
        for (int i = set.length - 1; i >= 0; i--) { // the last ops are the likeliest to be still running
            if (!set[i].isRetired()) {
                return false;
            }
        }
        return true;
    }

    /** The next replay's number, from 1. */
    long nextReplay() {
        return replays.incrementAndGet();
    }

    /**
     * Refuses a replay that would push a deleted variable or operator.
     *
     * @throws IllegalStateException naming it and the op
     */
    void requireLive() {
        for (int i = 0; i < vars.length; i++) {
            if (vars[i].isDeleted()) {
                throw new IllegalStateException(vars[i] + " was deleted; " + this + " cannot be replayed: its op '"
                        + label(firstUser[i]) + "' uses it. Capture a new graph over live variables");
            }
        }
        for (RecordedOp r : ops) {
            if (r.def().isDeleted()) {
                throw new IllegalStateException(r.def() + " was deleted; " + this + " cannot be replayed: it pushes it. "
                        + "Capture a new graph");
            }
        }
    }

    private static String label(OpDef def) {
        return def.givenName() == null ? "<unnamed>" : def.givenName();
    }

    @Override
    public String toString() {
        return "graph of " + ops.length + " ops on engine '" + engine.name() + "'";
    }
}
