package org.depengine.core.replay;

import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.SyncFn;
import org.depengine.core.bulk.MergedVars;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.SkipRule;
import org.depengine.core.tracker.Var;

/**
 * A graph's replay as one op, where that gives up no parallelism within the graph: on an engine that
 * runs every op on its pusher and returns from the push once the op is finished (the naive engine,
 * {@link ReplayHost#runsOnPusher()}), whose replays run their ops one after another on the replaying
 * thread anyway; and on any engine, for a graph whose every op conflicts with the one before it (a
 * chain, which no two threads could run at once). It saves what each op costs on its own: its block,
 * its dispatch and hand-off, its registration's and completion's locks, its pending-count exit. The op
 * holds every variable of the graph from its first op to its last ({@link MergedVars}), so no other push
 * comes between them; its function runs the graph's ops in graph order, on one thread.
 *
 * <p><b>Same results, same failures, same counts as a replay op by op.</b> Each op is under the skip
 * rule as if pushed alone ({@link SkipRule#inherited}); an op that throws fails alone, under its own
 * name, and the ops after it still run unless they use what it wrote (unlike a bulk, which stops at a
 * failure). A failure is counted and kept for {@code waitForAll} as an op's own
 * ({@link ReplayHost#opFailed}), a skip counted ({@link ReplayHost#opSkipped}). Every write counts in
 * {@link Var#version()} as soon as its op is done, so a later op reads the count it would read op by
 * op. The push takes the graph's {@link OpDef#ops()} ids (an op's generated name,
 * {@code "op#" + id}, is the one it would have had), and counts that many ops pushed, replayed and run.
 *
 * <p><b>What it gives up:</b> another thread's op on any of the graph's variables waits for the whole
 * replay, not only for the ops it conflicts with. And where the whole op is skipped without running (its
 * push came after {@code notifyShutdown}), its completion counts one write of each variable, as a
 * bulk's merged op's does, not one per op.
 *
 * <p><b>When a replay does not run whole</b> (it replays op by op, {@link RecordedGraph}): a graph
 * that is not a chain, on an engine with threads of its own; a graph of one op; any op that is async,
 * internal, or of a property other than {@link FnProperty#NORMAL} and {@link FnProperty#NO_SKIP}; ops
 * of a device context, or of more than one context; and any replay while a listener is set, which is
 * told of each op.
 */
final class WholeReplay implements SyncFn {
    private final ReplayHost host;
    private final OpDef[] ops;
    private final SyncFn[] fns; // ops[i].syncFn(), looked up once
    private final OpDef def;
    private final Context ctx;
    private final int priority;

    private WholeReplay(ReplayHost host, RecordedOp[] recorded, String graphName) {
        this.host = host;
        this.ops = new OpDef[recorded.length];
        this.fns = new SyncFn[recorded.length];
        for (int i = 0; i < recorded.length; i++) {
            ops[i] = recorded[i].def();
            fns[i] = ops[i].syncFn();
        }
        MergedVars v = MergedVars.of(ops);
        this.ctx = recorded[0].ctx();
        this.priority = recorded[0].priority();
        this.def = new OpDef(ops[0].owner(), this, v.reads(), v.writes(), FnProperty.NO_SKIP,
                "replay of " + graphName, OpDef.Kind.USER, ops.length);
    }

    /** The graph's replay as one op, or null if it must replay op by op (see the class comment). */
    static WholeReplay of(ReplayHost host, RecordedOp[] recorded, String graphName) {
        if (recorded.length < 2) {
            return null;
        }
        Context first = recorded[0].ctx();
        if (!first.isCpu()) {
            return null; // a device op's work ends after it returns: op by op, each is complete before the next
        }
        for (RecordedOp r : recorded) {
            OpDef d = r.def();
            boolean plain = d.prop() == FnProperty.NORMAL || d.prop() == FnProperty.NO_SKIP;
            if (!d.isSync() || d.kind() != OpDef.Kind.USER || !plain || !r.ctx().equals(first)) {
                return null;
            }
        }
        if (!host.runsOnPusher() && !chain(recorded)) {
            return null; // its ops could run in parallel on the engine's threads
        }
        return new WholeReplay(host, recorded, graphName);
    }

    /** Whether every op conflicts with the one before it: one writes a variable the other uses. */
    private static boolean chain(RecordedOp[] recorded) {
        for (int i = 1; i < recorded.length; i++) {
            OpDef before = recorded[i - 1].def();
            OpDef op = recorded[i].def();
            if (!writesAny(before, op.reads()) && !writesAny(before, op.writes()) && !writesAny(op, before.reads())) {
                return false;
            }
        }
        return true;
    }

    private static boolean writesAny(OpDef op, Var[] vars) {
        for (Var w : op.writes()) {
            for (Var v : vars) {
                if (w == v) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The op's definition: the graph's variables, this function, standing for the graph's ops. */
    OpDef def() {
        return def;
    }

    /** The context of the graph's ops. */
    Context ctx() {
        return ctx;
    }

    /** The priority of the graph's first op. */
    int priority() {
        return priority;
    }

    /** Whether {@code op} is a run of this replay. */
    boolean runs(OpBlock op) {
        return op.def() == def;
    }

    @Override
    public void run(RunContext rc) {
        OpBlock block = (OpBlock) rc; // the engine runs the op with its block
        long firstId = block.id(); // the ops' ids follow it
        block.countsItsWrites(); // after each op, as op by op: a later op may read a count
        // While this op holds the graph's variables, only its ops give them failures: so if none carries
        // one now, no op can inherit one until an op of this run fails, and the rule need not look.
        boolean clean = noneFailed(def.reads()) && noneFailed(def.writes());
        for (int i = 0; i < ops.length; i++) {
            OpDef op = ops[i];
            Failure inherited = clean ? null : SkipRule.inherited(op);
            if (inherited != null) {
                carry(inherited, op.writes());
                host.opSkipped();
            } else {
                try {
                    fns[i].run(rc);
                } catch (Throwable t) {
                    clean = false;
                    String name = op.givenName() != null ? op.givenName() : "op#" + (firstId + i);
                    carry(host.opFailed(t, name), op.writes());
                }
            }
            for (Var w : op.writes()) {
                w.countWrites(1); // a skipped or failed write counts too
            }
        }
    }

    private static boolean noneFailed(Var[] vars) {
        for (Var v : vars) {
            if (v.activeFailure() != null) {
                return false;
            }
        }
        return true;
    }

    /** An op's writes carry {@code f}; the replay's op holds them. */
    private static void carry(Failure f, Var[] writes) {
        for (Var w : writes) {
            w.carryFailure(f);
        }
    }
}
