package org.depengine.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.ReplayLinks;
import org.depengine.core.tracker.ReplayRegistrations;
import org.depengine.core.tracker.Var;

/**
 * What a graph computes once, at capture, so that its replays register less: per op, which accesses go
 * through their variables' queues and which edges order the others ({@link ReplayLinks}; the rule is
 * there and in {@code docs/design.md}), with the edges that others imply dropped ({@link #reduce}), and
 * the registered accesses by variable, every variable in lock order ({@link ReplayRegistrations}).
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

    final ReplayLinks[] links;
    /** Each variable's registered accesses, and every variable in lock order. */
    final ReplayRegistrations registrations;

    ReplayPlan(RecordedOp[] ops) {
        Map<Var, List<Access>> byVar = new IdentityHashMap<>();
        boolean[][] skipped = new boolean[ops.length][];
        for (int i = 0; i < ops.length; i++) {
            OpDef d = ops[i].def();
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
        int[] preds = new int[ops.length];
        for (Set<Integer> s : succ) {
            for (int j : s) {
                preds[j]++;
            }
        }
        links = new ReplayLinks[ops.length];
        for (int i = 0; i < ops.length; i++) {
            links[i] = new ReplayLinks(skipped[i], preds[i], succ.get(i).stream().mapToInt(Integer::intValue).toArray());
        }
        Var[] lockOrder = byVar.keySet().toArray(new Var[0]);
        Arrays.sort(lockOrder, Comparator.comparingLong(Var::lockOrder));
        OpDef[] defs = new OpDef[ops.length];
        for (int i = 0; i < ops.length; i++) {
            defs[i] = ops[i].def();
        }
        registrations = new ReplayRegistrations(defs, links, lockOrder);
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
