package org.depengine.benchmarks.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.depengine.api.FnProperty;

/**
 * An immutable, pre-generated list of ops: for each op the variables it reads, the variables it
 * writes, its {@link FnProperty}, its nominal busy-spin work in nanoseconds, and a tag the workload's
 * body uses to tell ops apart (a batch number and role, a blocker...). Variables are the integers
 * {@code 0 .. varCount-1}. Every contender of a benchmark runs the same list, so they all do the same
 * work in the same dependency structure. Thread-safe (immutable; the arrays are never handed out for
 * writing).
 */
public final class OpList {
    private static final int[] NONE = new int[0];

    private final String name;
    private final int varCount;
    private final int[][] reads;
    private final int[][] writes;
    private final FnProperty[] props;
    private final long[] workNanos;
    private final int[] tags;
    private final int period; // op i is op i % period repeated; size() when the list does not repeat

    private OpList(String name, int varCount, int[][] reads, int[][] writes, FnProperty[] props, long[] workNanos,
                   int[] tags) {
        this(name, varCount, reads, writes, props, workNanos, tags, reads.length);
    }

    private OpList(String name, int varCount, int[][] reads, int[][] writes, FnProperty[] props, long[] workNanos,
                   int[] tags, int period) {
        this.period = period;
        this.name = name;
        this.varCount = varCount;
        this.reads = reads;
        this.writes = writes;
        this.props = props;
        this.workNanos = workNanos;
        this.tags = tags;
    }

    /** A builder for a list over {@code varCount} variables. */
    public static Builder builder(String name, int varCount) {
        return new Builder(name, varCount);
    }

    /** A short description, e.g. {@code "RandomDag(mxnet)"}. */
    public String name() {
        return name;
    }

    /** The number of ops. */
    public int size() {
        return reads.length;
    }

    /** The number of variables. */
    public int varCount() {
        return varCount;
    }

    /** The variables op {@code i} reads; do not modify. */
    public int[] reads(int i) {
        return reads[i];
    }

    /** The variables op {@code i} writes; do not modify. */
    public int[] writes(int i) {
        return writes[i];
    }

    /** Op {@code i}'s property. */
    public FnProperty prop(int i) {
        return props[i];
    }

    /** Op {@code i}'s nominal busy-spin work in nanoseconds (0: no work beyond the checksum). */
    public long workNanos(int i) {
        return workNanos[i];
    }

    /** Op {@code i}'s tag (the workload decides what it means; 0 by default). */
    public int tag(int i) {
        return tags[i];
    }

    /**
     * The length of the step this list repeats ({@link #repeat}), or {@link #size()} if it does not:
     * op {@code i} is then op {@code i % period()} again, with the same variables and the same effect.
     */
    public int period() {
        return period;
    }

    /** Which op of the repeated step op {@code i} is: {@code i % period()}; the index its effect mixes in. */
    public int identity(int i) {
        return i % period;
    }

    /**
     * This list's first {@code period} ops, repeated {@code times} times: the op list of a training loop
     * that runs the same step of {@code period} ops {@code times} times (op {@code i} is op
     * {@code i % period} again, effect included, so a serial run of the whole list is the oracle of
     * replaying a graph of one step {@code times} times).
     *
     * @throws IllegalArgumentException if {@code period} is not in [1, size()] or {@code times} < 1
     */
    public OpList repeat(int period, int times) {
        if (period < 1 || period > size() || times < 1) {
            throw new IllegalArgumentException("cannot repeat " + period + " of " + size() + " ops " + times + " times");
        }
        int n = period * times;
        int[][] r = new int[n][];
        int[][] w = new int[n][];
        FnProperty[] p = new FnProperty[n];
        long[] work = new long[n];
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            int k = i % period;
            r[i] = reads[k];
            w[i] = writes[k];
            p[i] = props[k];
            work[i] = workNanos[k];
            t[i] = tags[k];
        }
        return new OpList(name + "×" + times, varCount, r, w, p, work, t, period);
    }

    /** The sum of every op's nominal work, in nanoseconds. */
    public long totalWorkNanos() {
        long sum = 0;
        for (long w : workNanos) {
            sum += w;
        }
        return sum;
    }

    /** How many ops write each variable: the version a variable reaches in one run. */
    public long[] writesPerVar() {
        long[] count = new long[varCount];
        for (int[] w : writes) {
            for (int v : w) {
                count[v]++;
            }
        }
        return count;
    }

    /**
     * The ops whose tag satisfies {@code keep}, in order, over the same variables: for the lane
     * baselines, which run only one kind of op.
     */
    public OpList subset(String subsetName, java.util.function.IntPredicate keep) {
        Builder b = builder(subsetName, varCount);
        for (int i = 0; i < size(); i++) {
            if (keep.test(tags[i])) {
                b.op(reads[i], writes[i], props[i], workNanos[i], tags[i]);
            }
        }
        return b.build();
    }

    @Override
    public String toString() {
        return name + "[" + size() + " ops, " + varCount + " vars" + (period < size() ? ", a step of " + period + " ops repeated" : "") + "]";
    }

    /** Collects ops in push order. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private final int varCount;
        private final List<int[]> reads = new ArrayList<>();
        private final List<int[]> writes = new ArrayList<>();
        private final List<FnProperty> props = new ArrayList<>();
        private long[] work = new long[64];
        private int[] tags = new int[64];

        private Builder(String name, int varCount) {
            this.name = Objects.requireNonNull(name, "name");
            if (varCount < 1) {
                throw new IllegalArgumentException("an op list needs at least one variable, got " + varCount);
            }
            this.varCount = varCount;
        }

        /** Adds a {@link FnProperty#NORMAL} op with no work and tag 0. */
        public Builder op(int[] opReads, int[] opWrites) {
            return op(opReads, opWrites, FnProperty.NORMAL, 0, 0);
        }

        /**
         * Adds an op.
         *
         * @throws IllegalArgumentException if a variable is out of range, listed twice, or both read and written
         */
        public Builder op(int[] opReads, int[] opWrites, FnProperty prop, long workNanos, int tag) {
            int[] r = opReads.length == 0 ? NONE : opReads.clone();
            int[] w = opWrites.length == 0 ? NONE : opWrites.clone();
            check(r, w);
            int i = reads.size();
            if (i == work.length) {
                work = Arrays.copyOf(work, i * 2);
                tags = Arrays.copyOf(tags, i * 2);
            }
            reads.add(r);
            writes.add(w);
            props.add(Objects.requireNonNull(prop, "prop"));
            if (workNanos < 0) {
                throw new IllegalArgumentException("op " + i + ": work must be >= 0 ns, got " + workNanos);
            }
            work[i] = workNanos;
            tags[i] = tag;
            return this;
        }

        private void check(int[] r, int[] w) {
            int i = reads.size();
            for (int[] list : new int[][] {r, w}) {
                for (int k = 0; k < list.length; k++) {
                    if (list[k] < 0 || list[k] >= varCount) {
                        throw new IllegalArgumentException("op " + i + " of " + name + ": variable " + list[k]
                                + " is out of range [0, " + varCount + ")");
                    }
                    for (int j = 0; j < k; j++) {
                        if (list[j] == list[k]) {
                            throw new IllegalArgumentException("op " + i + " of " + name + ": variable " + list[k]
                                    + " is listed twice");
                        }
                    }
                }
            }
            for (int a : r) {
                for (int b : w) {
                    if (a == b) {
                        throw new IllegalArgumentException("op " + i + " of " + name + ": variable " + a
                                + " is both read and written; list it only as a write");
                    }
                }
            }
        }

        /** The list. */
        public OpList build() {
            int n = reads.size();
            return new OpList(name, varCount, reads.toArray(new int[0][]), writes.toArray(new int[0][]),
                    props.toArray(new FnProperty[0]), Arrays.copyOf(work, n), Arrays.copyOf(tags, n));
        }
    }
}
