package org.depengine.benchmarks.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dependency graph that an op list implies, derived once and shared by every baseline (the
 * engines derive it themselves, at push time): op {@code i} depends on the last earlier writer of
 * each variable it reads or writes, and, for each variable it writes, on every reader since that
 * writer. Edges always go from a lower to a higher index, so index order is a topological order.
 * Duplicate edges are merged. Immutable and thread-safe.
 */
public final class DepGraph {
    private static final int[] NONE = new int[0];

    private final int[][] preds;
    private final int[][] succs;
    private final int[] sinks;
    private final int edges;
    private final int criticalPathOps;
    private final long criticalPathWorkNanos;

    private DepGraph(int[][] preds, int[][] succs, int[] sinks, int edges, int criticalPathOps,
                     long criticalPathWorkNanos) {
        this.preds = preds;
        this.succs = succs;
        this.sinks = sinks;
        this.edges = edges;
        this.criticalPathOps = criticalPathOps;
        this.criticalPathWorkNanos = criticalPathWorkNanos;
    }

    /** Derives the graph of {@code ops}. */
    public static DepGraph of(OpList ops) {
        int n = ops.size();
        int[] lastWriter = new int[ops.varCount()];
        Arrays.fill(lastWriter, -1);
        IntList[] readersSince = new IntList[ops.varCount()];
        int[] stamp = new int[n]; // stamp[p] == i + 1: edge p -> i already added
        int[][] preds = new int[n][];
        IntList scratch = new IntList();
        int edges = 0;
        for (int i = 0; i < n; i++) {
            scratch.clear();
            for (int v : ops.reads(i)) {
                edges += addEdge(lastWriter[v], i, stamp, scratch);
            }
            for (int v : ops.writes(i)) {
                edges += addEdge(lastWriter[v], i, stamp, scratch);
                IntList readers = readersSince[v];
                if (readers != null) {
                    for (int k = 0; k < readers.size; k++) {
                        edges += addEdge(readers.items[k], i, stamp, scratch);
                    }
                    readers.clear();
                }
            }
            for (int v : ops.reads(i)) {
                IntList readers = readersSince[v];
                if (readers == null) {
                    readers = new IntList();
                    readersSince[v] = readers;
                }
                readers.add(i);
            }
            for (int v : ops.writes(i)) {
                lastWriter[v] = i;
            }
            preds[i] = scratch.size == 0 ? NONE : scratch.toArray();
        }
        int[][] succs = successors(preds);
        List<Integer> sinkList = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (succs[i].length == 0) {
                sinkList.add(i);
            }
        }
        int[] sinks = sinkList.stream().mapToInt(Integer::intValue).toArray();
        // Longest paths, in index (= topological) order.
        int[] depth = new int[n];
        long[] work = new long[n];
        int cpOps = 0;
        long cpWork = 0;
        for (int i = 0; i < n; i++) {
            int d = 0;
            long w = 0;
            for (int p : preds[i]) {
                d = Math.max(d, depth[p]);
                w = Math.max(w, work[p]);
            }
            depth[i] = d + 1;
            work[i] = w + ops.workNanos(i);
            cpOps = Math.max(cpOps, depth[i]);
            cpWork = Math.max(cpWork, work[i]);
        }
        return new DepGraph(preds, succs, sinks, edges, cpOps, cpWork);
    }

    private static int addEdge(int from, int to, int[] stamp, IntList out) {
        if (from < 0 || stamp[from] == to + 1) {
            return 0;
        }
        stamp[from] = to + 1;
        out.add(from);
        return 1;
    }

    private static int[][] successors(int[][] preds) {
        int n = preds.length;
        int[] count = new int[n];
        for (int[] p : preds) {
            for (int q : p) {
                count[q]++;
            }
        }
        int[][] succs = new int[n][];
        for (int i = 0; i < n; i++) {
            succs[i] = count[i] == 0 ? NONE : new int[count[i]];
        }
        int[] fill = new int[n];
        for (int i = 0; i < n; i++) {
            for (int q : preds[i]) {
                succs[q][fill[q]++] = i;
            }
        }
        return succs;
    }

    /** The number of ops. */
    public int size() {
        return preds.length;
    }

    /** The ops op {@code i} waits for, ascending; do not modify. */
    public int[] preds(int i) {
        return preds[i];
    }

    /** The ops that wait for op {@code i}, ascending; do not modify. */
    public int[] succs(int i) {
        return succs[i];
    }

    /** The ops nothing waits for: every op is an ancestor of (or is) one of them. */
    public int[] sinks() {
        return sinks.clone();
    }

    /** The number of (distinct) edges. */
    public int edges() {
        return edges;
    }

    /** The number of ops on the longest path. */
    public int criticalPathOps() {
        return criticalPathOps;
    }

    /** The largest sum of nominal work along a path, in nanoseconds. */
    public long criticalPathWorkNanos() {
        return criticalPathWorkNanos;
    }

    /** A growable int array. */
    private static final class IntList {
        int[] items = new int[8];
        int size;

        void add(int v) {
            if (size == items.length) {
                items = Arrays.copyOf(items, size * 2);
            }
            items[size++] = v;
        }

        void clear() {
            size = 0;
        }

        int[] toArray() {
            int[] out = Arrays.copyOf(items, size);
            Arrays.sort(out);
            return out;
        }
    }
}
