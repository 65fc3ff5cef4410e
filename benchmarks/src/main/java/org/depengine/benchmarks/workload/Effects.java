package org.depengine.benchmarks.workload;

import java.util.Arrays;

/**
 * The observable effect of running an op list: one {@code long} per variable. Op {@code i} mixes its
 * index ({@link OpList#identity}) and the values of the variables it reads into each variable it writes, so the final values
 * depend on every read seeing the right write: a run in a wrong order gives other values (with
 * overwhelming probability). The expected values come from a serial run ({@link #oracle}).
 *
 * <p>Not synchronised: a contender must give the same guarantees an engine gives (an op's reads see
 * its predecessors' writes; no two conflicting ops at once), which is exactly what is being checked.
 */
public final class Effects {
    private final OpList ops;
    private final long[] values;

    /** Zeroed values for {@code ops}' variables. */
    public Effects(OpList ops) {
        this.ops = ops;
        this.values = new long[ops.varCount()];
    }

    /** The values after a serial run of every op in order. */
    public static long[] oracle(OpList ops) {
        Effects e = new Effects(ops);
        for (int i = 0; i < ops.size(); i++) {
            e.apply(i);
        }
        return e.snapshot();
    }

    /** Back to all zeros, before a run. */
    public void reset() {
        Arrays.fill(values, 0L);
    }

    /** Applies op {@code i}'s effect (that of {@link OpList#identity} {@code i}: a repeated op has its step's). */
    public void apply(int i) {
        long h = (ops.identity(i) + 1) * 0x9E3779B97F4A7C15L;
        for (int v : ops.reads(i)) {
            h = mix(h ^ values[v]);
        }
        for (int v : ops.writes(i)) {
            values[v] = mix(h + 31 * values[v] + v);
        }
    }

    /** A copy of the current values. */
    public long[] snapshot() {
        return values.clone();
    }

    /**
     * Compares the current values with {@code expected}.
     *
     * @return null if equal, otherwise a description of the first difference
     */
    public String diff(long[] expected) {
        for (int v = 0; v < values.length; v++) {
            if (values[v] != expected[v]) {
                return "variable " + v + " is " + values[v] + ", a serial run gives " + expected[v];
            }
        }
        return null;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
