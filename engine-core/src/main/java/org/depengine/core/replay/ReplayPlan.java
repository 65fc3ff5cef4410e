package org.depengine.core.replay;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.ReplaySlot;
import org.depengine.core.tracker.Var;

/**
 * What a graph computes once, at capture, so that its replays register less: which of its ops'
 * accesses go through their variables' queues, and the edges between its ops that order the others.
 * Immutable; shared by every replay and every block set of the graph.
 *
 * <p><b>The rule</b> (the one place it is written; {@code docs/design.md} explains it). For each
 * variable, the graph's accesses in order are: the reads before its first write, the first write, the
 * middle accesses, the last write, the reads after it (a variable the graph only reads has reads only).
 * <ul>
 *   <li><b>Registered on the variable's queue:</b> every access up to and including the first write
 *   (they wait for what was pushed before the replay), the last write, and the reads after it (later
 *   pushes must wait for them: a write waits for registered readers only, a read for registered writes
 *   only).</li>
 *   <li><b>Not registered:</b> the middle accesses. An edge orders each access after its conflicting
 *   predecessors on the variable (a read after the last write before it; a write after that write and
 *   the reads since) wherever either end is not registered (the queue orders the registered pairs).</li>
 *   <li>Edges that other edges imply are dropped ({@link #reduce}): each costs an update of its
 *   successor's latch at every replay.</li>
 * </ul>
 * Why that is enough: the graph's first and last write of a variable are registered, and a replay
 * registers all its accesses as one step ({@code Registration.registerReplay}); so no other push can
 * come between them, and the last write, which every middle access precedes through edges, holds the
 * variable until they are done. A middle write still counts in the variable's version and carries its
 * failure ({@link ReplaySlot#completed}). An edge is let go at its op's completion, never at launch.
 */
final class ReplayPlan {
    /** One access of the graph to a variable: op index, access index in the op (reads, then writes). */
    private record Access(int op, int index, boolean write) {
    }

    /**
     * The largest graph whose edges are reduced ({@link #reduce}): its ancestor sets take ops²/8 bytes
     * while the plan is made (32 MiB at this size); larger graphs keep every edge.
     */
    static final int REDUCE_LIMIT = 16_384;

    /** Per op, per access (its reads, then its writes): true if the access is not registered. */
    final boolean[][] skipped;
    /** Per op: how many ops of the same replay it waits for. */
    final int[] preds;
    /** Per op: the ops of the same replay that wait for it. */
    final int[][] successors;
    /** Every variable of the graph once, in ascending {@link Var#lockOrder()}. */
    final Var[] vars;
    /** Per variable of {@link #vars}: its registered accesses in graph order, each the op's index × 2, + 1 for a write. */
    final int[][] accesses;

    ReplayPlan(OpDef[] ops) {
        Map<Var, List<Access>> byVar = new IdentityHashMap<>();
        skipped = new boolean[ops.length][];
        for (int i = 0; i < ops.length; i++) {
            OpDef d = ops[i];
            skipped[i] = new boolean[d.varCount()];
            for (int k = 0; k < d.reads().length; k++) {
                byVar.computeIfAbsent(d.reads()[k], v -> new ArrayList<>()).add(new Access(i, k, false));
            }
            for (int k = 0; k < d.writes().length; k++) {
                byVar.computeIfAbsent(d.writes()[k], v -> new ArrayList<>()).add(new Access(i, d.reads().length + k, true));
            }
        }
        List<Set<Integer>> succ = new ArrayList<>(ops.length);
        for (int i = 0; i < ops.length; i++) {
            succ.add(new LinkedHashSet<>());
        }
        for (List<Access> acc : byVar.values()) {
            link(acc, skipped, succ);
        }
        if (ops.length <= REDUCE_LIMIT) {
            reduce(succ);
        }
        preds = new int[ops.length];
        successors = new int[ops.length][];
        for (int i = 0; i < ops.length; i++) {
            successors[i] = succ.get(i).stream().mapToInt(Integer::intValue).toArray();
            for (int j : successors[i]) {
                preds[j]++;
            }
        }
        vars = byVar.keySet().toArray(new Var[0]);
        Arrays.sort(vars, Comparator.comparingLong(Var::lockOrder));
        accesses = new int[vars.length][];
        for (int k = 0; k < vars.length; k++) {
            List<Access> acc = byVar.get(vars[k]);
            accesses[k] = acc.stream().filter(a -> !skipped[a.op()][a.index()])
                    .mapToInt(a -> a.op() * 2 + (a.write() ? 1 : 0)).toArray();
        }
    }

    /** Op {@code i}'s slot in a new block set of {@code graph} ({@code peers}: that set). */
    ReplaySlot slot(Object graph, int i, OpBlock[] peers) {
        return new ReplaySlot(graph, skipped[i], preds[i], successors[i], peers);
    }

    /**
     * Drops every edge that a path through other edges implies (the transitive reduction), so that a
     * completing op lets go only the successors nothing else orders after it: one atomic update per edge
     * kept, where a random DAG's per-variable edges are mostly redundant. Ordering is unchanged: an op
     * still starts only after every op it had an edge from has completed, through the path. Edges go
     * from lower to higher indexes, so graph order is topological; for each op, its predecessors are
     * visited from the latest down, and one that is an ancestor of a later one (already in the set of
     * their ancestors) is redundant.
     */
    static void reduce(List<Set<Integer>> succ) {
        int n = succ.size();
        List<List<Integer>> preds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            preds.add(new ArrayList<>(2));
        }
        for (int i = 0; i < n; i++) {
            for (int j : succ.get(i)) {
                preds.get(j).add(i); // visited in increasing i: each list is sorted
            }
        }
        int words = (n + 63) >>> 6;
        long[][] ancestors = new long[n][];
        for (int j = 0; j < n; j++) {
            List<Integer> p = preds.get(j);
            long[] a = new long[words];
            for (int k = p.size() - 1; k >= 0; k--) {
                int q = p.get(k);
                if ((a[q >>> 6] & (1L << q)) != 0) {
                    succ.get(q).remove(j); // q is an ancestor of a later predecessor of j
                    continue;
                }
                a[q >>> 6] |= 1L << q;
                long[] aq = ancestors[q];
                for (int w = 0; w <= q >>> 6; w++) { // q's ancestors all have lower indexes
                    a[w] |= aq[w];
                }
            }
            ancestors[j] = a;
        }
    }

    /**
     * One variable's accesses, in graph order: marks the ones between its first and last write as
     * skipped, and adds the edges from each access to its conflicting predecessors (a read: the last
     * write before it; a write: that write and the reads since) wherever either end is skipped (the
     * variable's queue orders the registered pairs itself).
     */
    private static void link(List<Access> acc, boolean[][] skipped, List<Set<Integer>> succ) {
        int first = -1;
        int last = -1;
        for (int p = 0; p < acc.size(); p++) {
            if (acc.get(p).write()) {
                if (first < 0) {
                    first = p;
                }
                last = p;
            }
        }
        for (int p = first + 1; p < last; p++) {
            Access a = acc.get(p);
            skipped[a.op()][a.index()] = true;
        }
        int lastWrite = -1;
        for (int p = 0; p < acc.size(); p++) {
            Access a = acc.get(p);
            boolean aSkipped = p > first && p < last;
            if (a.write()) {
                // Its predecessors: the last write, and the reads since (every access after lastWrite is a read).
                for (int q = Math.max(lastWrite, 0); q < p; q++) {
                    if (aSkipped || (q > first && q < last)) {
                        succ.get(acc.get(q).op()).add(a.op());
                    }
                }
                lastWrite = p;
            } else if (lastWrite >= 0 && (aSkipped || (lastWrite > first && lastWrite < last))) {
                succ.get(acc.get(lastWrite).op()).add(a.op());
            }
        }
    }
}
