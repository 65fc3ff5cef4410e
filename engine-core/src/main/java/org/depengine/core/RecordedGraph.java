package org.depengine.core;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Graph;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.Var;

/**
 * A recorded op sequence: {@link #replay()} hands it to its engine ({@link AbstractEngine#replay}),
 * which pushes each op again. Immutable apart from the replay counter; thread-safe.
 */
final class RecordedGraph implements Graph {
    private final AbstractEngine engine;
    private final RecordedOp[] ops;
    /** Each variable the graph uses, once, with the first op using it (for the deletion check's message). */
    private final Var[] vars;
    private final OpDef[] firstUser;
    private final AtomicLong replays = new AtomicLong();
    private final ReplayPlan plan;

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
