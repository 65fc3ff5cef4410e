package org.depengine.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * MXNet's RandSumExpr workload: ops each read a few variables (drawn with replacement, so duplicates
 * happen) and write one; {@code data[w] = sum(data[reads]) / (reads + 1)} with the written variable
 * removed from the reads. {@link #runSerial} is the oracle: every engine must reproduce its result
 * exactly (same floating-point operations in the same order).
 */
public final class RandomWorkload {
    /** One op: the variables it reads (with repeats) and the one it writes. */
    public static final class Op {
        /** Indices read, duplicates allowed, never containing {@link #write}. */
        public final int[] reads;
        /** Index written. */
        public final int write;

        Op(int[] reads, int write) {
            this.reads = reads;
            this.write = write;
        }

        /** Applies the op to {@code data}. */
        public void apply(double[] data) {
            double sum = 0;
            for (int r : reads) {
                sum += data[r];
            }
            data[write] = sum / (reads.length + 1);
        }
    }

    /** The number of variables. */
    public final int vars;
    /** The ops, in push order. */
    public final List<Op> ops;

    private RandomWorkload(int vars, List<Op> ops) {
        this.vars = vars;
        this.ops = ops;
    }

    /**
     * Generates a workload.
     *
     * @param minReads at least this many reads drawn per op (before the write is removed)
     * @param maxReads at most this many
     */
    public static RandomWorkload generate(long seed, int opCount, int vars, int minReads, int maxReads) {
        Random rnd = new Random(seed);
        List<Op> ops = new ArrayList<>(opCount);
        for (int i = 0; i < opCount; i++) {
            int n = minReads + rnd.nextInt(maxReads - minReads + 1);
            int write = rnd.nextInt(vars);
            int[] drawn = new int[n];
            int k = 0;
            for (int j = 0; j < n; j++) {
                int r = rnd.nextInt(vars);
                if (r != write) {
                    drawn[k++] = r;
                }
            }
            ops.add(new Op(Arrays.copyOf(drawn, k), write));
        }
        return new RandomWorkload(vars, ops);
    }

    /** The initial data: every variable 1.0. */
    public double[] initialData() {
        double[] d = new double[vars];
        Arrays.fill(d, 1.0);
        return d;
    }

    /** The oracle: runs every op serially in push order. */
    public double[] runSerial() {
        double[] d = initialData();
        for (Op op : ops) {
            op.apply(d);
        }
        return d;
    }
}
