package org.depengine.core.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.Var;
import org.junit.jupiter.api.Test;

/** {@link ReplayPlan}: which accesses of a graph skip their variables' queues, and the edges that order them instead. */
class ReplayPlanTest {
    private static final SyncFn NOTHING = ctx -> { };
    private static final Var[] NONE = new Var[0];
    private final List<OpDef> ops = new ArrayList<>();

    private void op(Var[] reads, Var[] writes) {
        ops.add(new OpDef(this, NOTHING, reads, writes, FnProperty.NORMAL, "op" + ops.size(), OpDef.Kind.USER));
    }

    private ReplayPlan plan() {
        return new ReplayPlan(ops.toArray(new OpDef[0]));
    }

    @Test
    void theAccessesBetweenTheFirstAndTheLastWriteSkipTheQueueAndAreOrderedByEdges() {
        Var v = new Var(this, "v");
        Var[] one = {v};
        op(one, NONE);  // 0: read before the first write: registered
        op(NONE, one);  // 1: first write: registered
        op(one, NONE);  // 2: middle read: skipped, after 1
        op(one, NONE);  // 3: middle read: skipped, after 1
        op(NONE, one);  // 4: middle write: skipped, after 2, 3 (and 1, through them)
        op(one, NONE);  // 5: middle read: skipped, after 4
        op(NONE, one);  // 6: last write: registered, after 5 (and 4, through it; the queue orders it after 1)
        op(one, NONE);  // 7: read after the last write: registered, ordered by the queue
        ReplayPlan p = plan();
        boolean[] expected = {false, false, true, true, true, true, false, false};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], p.skipped[i][0], "access of op " + i);
        }
        int[][] preds = {{}, {}, {1}, {1}, {2, 3}, {4}, {5}, {}}; // implied edges (1->4, 4->6) dropped
        for (int j = 0; j < preds.length; j++) {
            List<Integer> got = new ArrayList<>();
            for (int i = 0; i < preds.length; i++) {
                for (int s : p.successors[i]) {
                    if (s == j) {
                        got.add(i);
                    }
                }
            }
            assertEquals(toList(preds[j]), got, "predecessors of op " + j);
        }
        assertArrayEquals(new Var[] {v}, p.vars);
        assertArrayEquals(new int[][] {{0, 3, 13, 14}}, p.accesses, "the registered accesses: ops 0 (read), 1, 6 (writes), 7 (read)");
    }

    @Test
    void aVariableWrittenOnceOrOnlyReadRegistersEveryAccess() {
        Var a = new Var(this, "a");
        Var b = new Var(this, "b");
        op(new Var[] {a}, new Var[] {b});
        op(new Var[] {a, b}, NONE);
        op(new Var[] {b}, new Var[] {a});
        ReplayPlan p = plan();
        for (int i = 0; i < 3; i++) {
            int n = ops.get(i).varCount();
            assertArrayEquals(new boolean[n], p.skipped[i], "op " + i);
            assertEquals(0, p.successors[i].length, "op " + i);
            assertEquals(0, p.preds[i], "op " + i);
        }
    }

    @Test
    void theModelCheckedGraphGetsTheLinksItsModelUses() {
        // TrackerModelCheckTest.WithReplays writes these slots by hand (ReplayPlan is not visible there).
        Var a = new Var(this, "a");
        Var b = new Var(this, "b");
        op(NONE, new Var[] {a});
        op(new Var[] {a}, new Var[] {b});
        op(new Var[] {b}, new Var[] {a});
        op(NONE, new Var[] {b});
        ReplayPlan p = plan();
        boolean[][] skipped = {{false}, {true, false}, {true, false}, {false}};
        int[][] succ = {{1}, {2}, {3}, {}};
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(skipped[i], p.skipped[i], "accesses of op " + i);
            assertArrayEquals(succ[i], p.successors[i], "successors of op " + i);
        }
        assertArrayEquals(new int[] {0, 1, 1, 1}, p.preds);
        int[][] byVar = p.vars[0] == a ? new int[][] {{1, 5}, {3, 7}} : new int[][] {{3, 7}, {1, 5}};
        assertArrayEquals(byVar, p.accesses, "a's queue gets ops 0 and 2, b's ops 1 and 3 (writes)");
    }

    @Test
    void reducingKeepsWhatEveryOpWaitsForAndDropsEveryImpliedEdge() {
        Random rnd = new Random(30);
        for (int round = 0; round < 200; round++) {
            int n = 1 + rnd.nextInt(40);
            List<Set<Integer>> succ = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Set<Integer> s = new LinkedHashSet<>();
                for (int j = i + 1; j < n; j++) {
                    if (rnd.nextInt(4) == 0) {
                        s.add(j);
                    }
                }
                succ.add(s);
            }
            boolean[][] before = closure(succ);
            ReplayPlan.reduce(succ);
            boolean[][] after = closure(succ);
            assertEquals(toString(before), toString(after), "round " + round + ": reachability changed");
            for (int i = 0; i < n; i++) {
                for (int j : succ.get(i)) {
                    for (int k : succ.get(i)) {
                        assertFalse(k != j && after[k][j], "round " + round + ": edge " + i + "->" + j
                                + " is implied through " + k);
                    }
                }
            }
        }
    }

    /** reach[i][j]: j is reachable from i through one edge or more. */
    private static boolean[][] closure(List<Set<Integer>> succ) {
        int n = succ.size();
        boolean[][] reach = new boolean[n][n];
        for (int i = n - 1; i >= 0; i--) {
            for (int j : succ.get(i)) {
                reach[i][j] = true;
                for (int k = 0; k < n; k++) {
                    reach[i][k] |= reach[j][k];
                }
            }
        }
        return reach;
    }

    private static String toString(boolean[][] m) {
        return Arrays.deepToString(m);
    }

    private static List<Integer> toList(int[] a) {
        List<Integer> l = new ArrayList<>();
        for (int x : a) {
            l.add(x);
        }
        return l;
    }
}
