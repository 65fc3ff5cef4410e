package org.depengine.core.bulk;

import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.SyncFn;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.core.tracker.Failure;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.SkipRule;
import org.depengine.core.tracker.Var;

/**
 * The function of a merged op: runs the members in push order, each under the skip rule as if it had
 * been pushed alone, and stops running members after one throws. The merged op itself is
 * {@link FnProperty#NO_SKIP}, so that the rule is applied here, member by member; failures are attached
 * to the variables of the members they concern, never to the merged op.
 *
 * <p>It holds every variable it touches for its whole run, so the failures it reads and attaches and
 * the versions it counts cannot race with another op.
 *
 * <p>Each member, skipped ones included, is reported in push order to the merged op's listener
 * ({@link OpListener#memberFinished}), on the running thread, between the merged op's {@code started}
 * and {@code finished}; without a listener nothing is timed or allocated per member.
 */
final class MergedBody implements SyncFn {
    private final BulkHost host;
    private final OpDef[] members;
    private final Var[] extraWriteVars;   // variables written by more than one member
    private final int[] extraWrites;      // how many writes each of those counts beyond the merged op's one

    MergedBody(BulkHost host, OpDef[] members, Var[] extraWriteVars, int[] extraWrites) {
        this.host = host;
        this.members = members;
        this.extraWriteVars = extraWriteVars;
        this.extraWrites = extraWrites;
    }

    @Override
    public void run(RunContext ctx) {
        // The engine runs a merged op with its OpBlock as the RunContext; its listener (the fan-out) is
        // null when nobody listens, and then no member costs a clock read or an allocation.
        OpBlock op = ctx instanceof OpBlock ? (OpBlock) ctx : null;
        OpListener l = op == null ? null : op.listener();
        Failure thrown = null;
        try {
            for (int i = 0; i < members.length; i++) {
                OpDef m = members[i];
                if (thrown != null) {
                    attach(thrown, m.writes()); // the members after a failed one are skipped
                    skipped(l, op, i, m);
                    continue;
                }
                Failure inherited = SkipRule.inherited(m); // the skip rule of a lone op
                if (inherited != null) {
                    attach(inherited, m.writes());
                    skipped(l, op, i, m);
                    continue;
                }
                long start = l == null ? 0 : System.nanoTime();
                OpInfo.Outcome outcome = OpInfo.Outcome.DONE;
                try {
                    m.syncFn().run(ctx);
                } catch (Throwable t) {
                    outcome = OpInfo.Outcome.FAILED;
                    thrown = host.memberFailed(t, label(m));
                    attach(thrown, m.writes());
                }
                if (l != null) {
                    l.memberFinished(op, i, label(m), outcome, start, System.nanoTime());
                }
            }
        } finally {
            for (int i = 0; i < extraWriteVars.length; i++) {
                extraWriteVars[i].countWrites(extraWrites[i]); // skipped writes count too
            }
        }
    }

    /** Reports a skipped member: a zero-length slice at the time it was skipped. */
    private static void skipped(OpListener l, OpBlock op, int index, OpDef m) {
        if (l != null) {
            long now = System.nanoTime();
            l.memberFinished(op, index, label(m), OpInfo.Outcome.SKIPPED, now, now);
        }
    }

    /** A member's name in messages and traces: its given name, or what it was. */
    static String label(OpDef m) {
        return m.givenName() != null ? m.givenName() : "unnamed op";
    }

    private static void attach(Failure f, Var[] writes) {
        for (Var w : writes) {
            w.carryFailure(f);
        }
    }
}
