package org.depengine.core.replay;

import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Graph;
import org.depengine.api.listen.OpListener;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpDevice;
import org.depengine.core.tracker.Var;

/**
 * A recorded op sequence that replays itself: it owns its plan (what capture computed, {@link ReplayPlan}),
 * its block pool ({@link BlockPool}) and its launch ({@link #replay()}), and asks of its engine only what
 * a push needs ({@link ReplayHost}). Immutable apart from the replay counter and the pool; thread-safe.
 *
 * <p>A replay pushes the recorded ops again, in order, from the calling thread, as one step: one
 * pending-count entry and one range of ids for all its ops, one registration of all their registered
 * accesses ({@code Registration.registerReplay}), then each op's guard and the dispatch policy's
 * after-push step in graph order. Where the engine runs every op on its pusher, a graph of synchronous
 * ops of one CPU context replays as one op instead ({@link WholeReplay}).
 */
final class RecordedGraph implements Graph {
    private final ReplayHost engine;
    private final RecordedOp[] ops;
    private final OpDef[] defs;
    /** For the deletion check's message: the first op using each of the plan's variables. */
    private final OpDef[] firstUser;
    private final AtomicLong replays = new AtomicLong();
    private final ReplayPlan plan;
    private final BlockPool pool = new BlockPool();
    /** The replay as one op, where the engine runs ops on their pusher; else null (see {@link WholeReplay}). */
    private final WholeReplay whole;

    RecordedGraph(ReplayHost engine, RecordedOp[] ops) {
        this.engine = engine;
        this.ops = ops;
        this.defs = new OpDef[ops.length];
        for (int i = 0; i < ops.length; i++) {
            defs[i] = ops[i].def();
        }
        this.plan = new ReplayPlan(defs);
        this.firstUser = new OpDef[plan.vars.length];
        for (int k = 0; k < plan.vars.length; k++) {
            firstUser[k] = firstUser(plan.vars[k]);
        }
        this.whole = WholeReplay.of(engine, ops, toString());
    }

    private OpDef firstUser(Var v) {
        for (OpDef d : defs) {
            for (Var r : d.reads()) {
                if (r == v) {
                    return d;
                }
            }
            for (Var w : d.writes()) {
                if (w == v) {
                    return d;
                }
            }
        }
        throw new AssertionError(v + " is in no op of " + this);
    }

    @Override
    public int size() {
        return ops.length;
    }

    @Override
    public long replays() {
        return replays.get();
    }

    /**
     * Pushes every op of the graph again, in order, from the calling thread (see {@link Graph#replay()}).
     */
    @Override
    public void replay() {
        Captures.refuse("replay() of %s", this);
        if (engine.isClosed()) {
            throw closed();
        }
        OpBlock current = engine.currentOp();
        if (current != null && (current.replayOf() == this || (whole != null && whole.runs(current)))) {
            throw new IllegalStateException("replay() of " + this + " was called from inside its own op '" + current.name()
                    + "': the replay would wait for the op that calls it. Replay it from outside its ops");
        }
        requireLive();
        long n = replays.incrementAndGet();
        engine.flushBulks();
        if (whole != null && engine.listener() == null) { // a listener is told of each op: op by op
            replayWhole();
            return;
        }
        ReplayHost.Entry entry = engine.enter(ops.length);
        OpListener l = engine.listener();
        OpBlock[] set;
        try {
            if (engine.isClosed()) {
                throw closed();
            }
            set = blocks(n, entry, l);
        } catch (Throwable t) {
            // Nothing is registered yet: leaving the entry undoes the ops counted (a phantom pending op
            // would hang every later waitForAll and close). A set taken from the pool is dropped, not
            // given back: its blocks made so far are not retired.
            for (int i = 0; i < ops.length; i++) {
                entry.account().exit();
            }
            engine.notPushed(ops.length);
            throw t;
        }
        engine.replayed(ops.length);
        if (l != null) {
            for (OpBlock op : set) {
                engine.reportPushed(op, l);
            }
        }
        Var refused = engine.registration().registerReplay(set, plan.vars, plan.accesses);
        // Guards drop in order, each op's after-push step before the next (the naive engine runs them one
        // by one); an op without a guard goes when its last predecessor in the replay completes.
        for (OpBlock op : set) {
            engine.launch(op, op.slot().guarded());
        }
        pool.giveBack(set); // reused by a later replay once every block is retired
        if (refused != null) {
            throw set[0].cancellation();
        }
    }

    /**
     * Pushes the replay as one op ({@link WholeReplay}): one entry of all the graph's ops in the pending
     * count (the op exits it for all of them) and all their ids, the first the op's; then its push as
     * an op's own.
     */
    private void replayWhole() {
        int n = ops.length;
        ReplayHost.Entry entry = engine.enter(n);
        OpBlock op;
        try {
            if (engine.isClosed()) {
                throw closed();
            }
            op = new OpBlock(whole.def(), engine.opHost(), whole.ctx(), whole.priority(), false, entry.firstId(), null,
                    entry.account().exiting(n), engine.opDevice(whole.ctx()));
            engine.route(op);
        } catch (Throwable t) {
            entry.account().exiting(n).exit(); // nothing registered: the entry is undone, as op by op
            engine.notPushed(n);
            throw t;
        }
        engine.replayed(n);
        RuntimeException cancelled = op.register();
        engine.launch(op, true);
        if (cancelled != null) {
            throw cancelled;
        }
    }

    /**
     * The ops of replay {@code n}, made and routed as a push does, not yet registered: a retired set of
     * an earlier replay from the pool, each block reused unless it may not be ({@link BlockPool#reusable}),
     * or a new set, whose blocks and slots are made once for all its replays.
     */
    private OpBlock[] blocks(long n, ReplayHost.Entry entry, OpListener l) {
        OpBlock[] kept = pool.take();
        OpBlock[] set = kept != null ? kept : new OpBlock[ops.length];
        for (int i = 0; i < ops.length; i++) {
            RecordedOp r = ops[i];
            OpDevice device = engine.opDevice(r.ctx());
            long id = entry.firstId() + i;
            OpBlock old = kept != null ? set[i] : null;
            OpBlock op;
            if (old != null && BlockPool.reusable(old, device)) {
                old.reuse(id, n, l, entry.account());
                op = old;
            } else {
                op = new OpBlock(r.def(), engine.opHost(), r.ctx(), r.priority(), r.profiling(), id, l, entry.account(), device);
                op.linkReplay(plan.slot(this, i, set), n);
            }
            set[i] = op;
            engine.route(op);
        }
        return set;
    }

    private IllegalStateException closed() {
        return new IllegalStateException("engine '" + engine.name() + "' is closed; " + this + " was not replayed. "
                + "Replay before close(), or capture the graph again on a new engine");
    }

    /**
     * Refuses a replay that would push a deleted variable or operator.
     *
     * @throws IllegalStateException naming it and the op
     */
    private void requireLive() {
        for (int k = 0; k < plan.vars.length; k++) {
            if (plan.vars[k].isDeleted()) {
                throw new IllegalStateException(plan.vars[k] + " was deleted; " + this + " cannot be replayed: its op '"
                        + label(firstUser[k]) + "' uses it. Capture a new graph over live variables");
            }
        }
        for (OpDef d : defs) {
            if (d.isDeleted()) {
                throw new IllegalStateException(d + " was deleted; " + this + " cannot be replayed: it pushes it. "
                        + "Capture a new graph");
            }
        }
    }

    static String label(OpDef def) {
        return def.givenName() == null ? "<unnamed>" : def.givenName();
    }

    @Override
    public String toString() {
        return "graph of " + ops.length + " ops on engine '" + engine.name() + "'";
    }
}
