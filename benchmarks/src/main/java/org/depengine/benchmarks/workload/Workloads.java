package org.depengine.benchmarks.workload;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.depengine.api.FnProperty;

/**
 * The op lists of every benchmark, from the benchmark's parameters. The benchmarks build their lists
 * here and the report generator rebuilds them (from the parameters recorded in the JMH results) to
 * know each list's size, critical path and work: one definition for both.
 */
public final class Workloads {
    /** Tag of a copy-in op in {@link #copyCompute}. */
    public static final int COPY_IN = 0;
    /** Tag of a compute op in {@link #copyCompute}. */
    public static final int COMPUTE = 1;
    /** Tag of a copy-out op in {@link #copyCompute}. */
    public static final int COPY_OUT = 2;
    /** Tags in {@link #copyCompute} are {@code batch * ROLES + role}. */
    public static final int ROLES = 3;
    /** Tag of a blocker op in {@link #pushCost}. */
    public static final int BLOCKER = 1;
    /** Tag of a timed op in {@link #pushCost}. */
    public static final int PUSHED = 0;

    /** Ops in each {@link #randomDag} shape. */
    public static final int RANDOM_DAG_OPS = 10_000;
    /** Ops in {@link #linearChain}. */
    public static final int CHAIN_OPS = 1 << 16;
    /** Ops of {@link #independent()}. */
    public static final int INDEPENDENT_OPS = 1 << 16;
    /** Variables of {@link #independent()}. */
    public static final int INDEPENDENT_VARS = 1000;
    /** Serial work of one run of {@link #metg}, ns. */
    public static final long METG_TOTAL_NANOS = 4_000_000;
    /** About how many ops {@link #fanOutFanIn} and {@link #readHeavy} repeat their pattern to. */
    public static final int REPEAT_TARGET_OPS = 1 << 14;
    /** Serial work of one {@link #cpuParallel} run, in nanoseconds (the op count is this over G). */
    public static final long CPU_PARALLEL_TOTAL_NANOS = 10_000_000;
    /** Batches of {@link #copyCompute}. */
    public static final int COPY_COMPUTE_BATCHES = 64;
    /** Buffers per stage in {@link #copyCompute} (double buffering). */
    public static final int COPY_COMPUTE_SLOTS = 2;
    /** Pushes timed per invocation of the push-cost benchmark. */
    public static final int PUSHES = 4096;

    private Workloads() {
    }

    /**
     * MXNet's engine test shape ({@code mxnet}: 10,000 ops over 100 variables, each reading 2–19 and
     * writing 1) or a wide one ({@code wide}: 1,000 variables, 0–3 reads, 1 write). Reads are
     * distinct and never the written variable. Fixed seed: the same list in every JVM.
     */
    public static OpList randomDag(String shape) {
        int vars;
        int minReads;
        int maxReads;
        switch (shape) {
            case "mxnet":
                vars = 100;
                minReads = 2;
                maxReads = 19;
                break;
            case "wide":
                vars = 1000;
                minReads = 0;
                maxReads = 3;
                break;
            default:
                throw new IllegalArgumentException("unknown RandomDag shape '" + shape + "'; use mxnet or wide");
        }
        SplittableRandom rnd = new SplittableRandom(0x5EED_0007L + vars);
        OpList.Builder b = OpList.builder("RandomDag(" + shape + ")", vars);
        boolean[] taken = new boolean[vars];
        for (int i = 0; i < RANDOM_DAG_OPS; i++) {
            int write = rnd.nextInt(vars);
            int nReads = minReads + rnd.nextInt(maxReads - minReads + 1);
            int[] reads = new int[nReads];
            taken[write] = true;
            for (int k = 0; k < nReads; k++) {
                int v;
                do {
                    v = rnd.nextInt(vars);
                } while (taken[v]);
                taken[v] = true;
                reads[k] = v;
            }
            for (int v : reads) {
                taken[v] = false;
            }
            taken[write] = false;
            b.op(reads, new int[] {write});
        }
        return b.build();
    }

    /** 2^16 ops each writing variable 0: one long chain of zero-work ops. */
    public static OpList linearChain() {
        OpList.Builder b = OpList.builder("LinearChain", 1);
        int[] w = {0};
        for (int i = 0; i < CHAIN_OPS; i++) {
            b.op(new int[0], w);
        }
        return b.build();
    }

    /**
     * One writer of variable 0, {@code fanOut} readers of it each writing its own variable, one joiner
     * reading all of those and writing variable {@code fanOut + 1}; repeated to about
     * {@value #REPEAT_TARGET_OPS} ops.
     */
    public static OpList fanOutFanIn(int fanOut) {
        requirePositive(fanOut, "fanOut");
        int rounds = Math.max(1, REPEAT_TARGET_OPS / (fanOut + 2));
        OpList.Builder b = OpList.builder("FanOutFanIn(F=" + fanOut + ")", fanOut + 2);
        int[] all = new int[fanOut];
        for (int k = 0; k < fanOut; k++) {
            all[k] = k + 1;
        }
        for (int r = 0; r < rounds; r++) {
            b.op(new int[0], new int[] {0});
            for (int k = 0; k < fanOut; k++) {
                b.op(new int[] {0}, new int[] {k + 1});
            }
            b.op(all, new int[] {fanOut + 1});
        }
        return b.build();
    }

    /**
     * One write of variable 0, then {@code reads} ops reading it (each writing its own output
     * variable), repeated to about {@value #REPEAT_TARGET_OPS} ops.
     */
    public static OpList readHeavy(int reads) {
        requirePositive(reads, "reads");
        int rounds = Math.max(1, REPEAT_TARGET_OPS / (reads + 1));
        OpList.Builder b = OpList.builder("ReadHeavy(R=" + reads + ")", reads + 1);
        for (int r = 0; r < rounds; r++) {
            b.op(new int[0], new int[] {0});
            for (int k = 0; k < reads; k++) {
                b.op(new int[] {0}, new int[] {k + 1});
            }
        }
        return b.build();
    }

    /** An n×n grid: op (i, j) reads (i−1, j) and (i, j−1) and writes (i, j); row-major push order. */
    public static OpList wavefront(int n) {
        requirePositive(n, "n");
        OpList.Builder b = OpList.builder("Wavefront(" + n + "x" + n + ")", n * n);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                int[] reads = i > 0 && j > 0 ? new int[] {(i - 1) * n + j, i * n + j - 1}
                        : i > 0 ? new int[] {(i - 1) * n + j}
                        : j > 0 ? new int[] {i * n + j - 1}
                        : new int[0];
                b.op(reads, new int[] {i * n + j});
            }
        }
        return b.build();
    }

    /**
     * Independent ops of {@code grainMicros} µs of busy-spin each (each writes its own variable),
     * {@value #CPU_PARALLEL_TOTAL_NANOS} ns of serial work in all.
     */
    public static OpList cpuParallel(int grainMicros) {
        requirePositive(grainMicros, "grain (µs)");
        long grain = grainMicros * 1000L;
        int n = (int) Math.max(1, CPU_PARALLEL_TOTAL_NANOS / grain);
        OpList.Builder b = OpList.builder("CpuParallel(G=" + grainMicros + "us)", n);
        for (int i = 0; i < n; i++) {
            b.op(new int[0], new int[] {i}, FnProperty.NORMAL, grain, 0);
        }
        return b.build();
    }

    /**
     * {@value #INDEPENDENT_OPS} zero-work ops, op i writing variable {@code i % }{@value #INDEPENDENT_VARS}
     * and reading nothing: independent but for the op {@value #INDEPENDENT_VARS} places before it (the
     * "independent ops over 1,000 vars" of the peer comparison).
     */
    public static OpList independent() {
        OpList.Builder b = OpList.builder("Independent", INDEPENDENT_VARS);
        for (int i = 0; i < INDEPENDENT_OPS; i++) {
            b.op(new int[0], new int[] {i % INDEPENDENT_VARS});
        }
        return b.build();
    }

    /**
     * Independent ops of {@code grainNanos} ns of busy-spin each (each writes its own variable),
     * {@value #METG_TOTAL_NANOS} ns of serial work in all: the op lengths METG is found between.
     */
    public static OpList metg(int grainNanos) {
        requirePositive(grainNanos, "grain (ns)");
        int n = (int) Math.max(1, METG_TOTAL_NANOS / grainNanos);
        OpList.Builder b = OpList.builder("Metg(G=" + grainNanos + "ns)", n);
        for (int i = 0; i < n; i++) {
            b.op(new int[0], new int[] {i}, FnProperty.NORMAL, grainNanos, 0);
        }
        return b.build();
    }

    /**
     * {@value #COPY_COMPUTE_BATCHES} batches of copy-in ({@link FnProperty#COPY_TO_DEVICE}), compute
     * ({@link FnProperty#NORMAL}) and copy-out ({@link FnProperty#COPY_FROM_DEVICE}), double-buffered:
     * batch b uses slot {@code b % 2} of the input, output and host variables, so the copies of one
     * batch can run while another computes. Work: {@code copyMicros} per copy, {@code computeMicros}
     * per compute (nominal; a device body may ignore it). Tags: {@code batch * ROLES + role}.
     */
    public static OpList copyCompute(int copyMicros, int computeMicros) {
        int slots = COPY_COMPUTE_SLOTS;
        // variables: in[s] = s, out[s] = slots + s, host[s] = 2 * slots + s
        OpList.Builder b = OpList.builder("ComputeCopyOverlap", 3 * slots);
        for (int batch = 0; batch < COPY_COMPUTE_BATCHES; batch++) {
            int s = batch % slots;
            b.op(new int[0], new int[] {s}, FnProperty.COPY_TO_DEVICE, copyMicros * 1000L, batch * ROLES + COPY_IN);
            b.op(new int[] {s}, new int[] {slots + s}, FnProperty.NORMAL, computeMicros * 1000L,
                    batch * ROLES + COMPUTE);
            b.op(new int[] {slots + s}, new int[] {2 * slots + s}, FnProperty.COPY_FROM_DEVICE, copyMicros * 1000L,
                    batch * ROLES + COPY_OUT);
        }
        return b.build();
    }

    /**
     * {@code blockers} ops (tag {@link #BLOCKER}) each writing its own variable, then
     * {@value #PUSHES} timed ops (tag {@link #PUSHED}): {@code independent} — each writes its own
     * variable; {@code dependent} — each writes variable 0, queued behind the first blocker.
     */
    public static OpList pushCost(String ops, int blockers) {
        requirePositive(blockers, "blockers");
        boolean dependent;
        switch (ops) {
            case "independent":
                dependent = false;
                break;
            case "dependent":
                dependent = true;
                break;
            default:
                throw new IllegalArgumentException("unknown PushCost ops '" + ops + "'; use independent or dependent");
        }
        OpList.Builder b = OpList.builder("PushCost(" + ops + ")", blockers + PUSHES);
        for (int k = 0; k < blockers; k++) {
            b.op(new int[0], new int[] {k}, FnProperty.NORMAL, 0, BLOCKER);
        }
        for (int k = 0; k < PUSHES; k++) {
            b.op(new int[0], new int[] {dependent ? 0 : blockers + k}, FnProperty.NORMAL, 0, PUSHED);
        }
        return b.build();
    }

    /** One op writing variable 0: the latency benchmark. */
    public static OpList single() {
        return OpList.builder("Latency", 1).op(new int[0], new int[] {0}).build();
    }

    /**
     * The op list of a benchmark from its JMH parameters, for the report; null when the benchmark has
     * no op list of its own (the push-cost benchmarks).
     *
     * @param benchmark the benchmark class's simple name, e.g. {@code RandomDag}
     * @throws IllegalArgumentException for an unknown benchmark or a missing or bad parameter
     */
    public static OpList forBenchmark(String benchmark, Map<String, String> params) {
        switch (benchmark) {
            case "RandomDag":
                return randomDag(param(params, "shape"));
            case "LinearChain":
                return linearChain();
            case "FanOutFanIn":
                return fanOutFanIn(intParam(params, "fanOut"));
            case "ReadHeavy":
                return readHeavy(intParam(params, "reads"));
            case "Wavefront":
                return wavefront(intParam(params, "n"));
            case "CpuParallel":
                return cpuParallel(intParam(params, "grainMicros"));
            case "Independent":
                return independent();
            case "Metg":
                return metg(intParam(params, "grainNanos"));
            case "Replay":
                return replayed(param(params, "shape"), params.getOrDefault("graph", REPLAY_WHOLE));
            case "ComputeCopyOverlap":
                return copyCompute(COPY_MICROS, COMPUTE_MICROS);
            case "PushCost":
                return null;
            default:
                throw new IllegalArgumentException("unknown benchmark '" + benchmark + "'");
        }
    }

    /** The shapes the Replay benchmark captures and replays. */
    public static final List<String> REPLAY_SHAPES = List.of("mxnet", "wide", "chain", "independent");
    /** The Replay benchmark's {@code graph} setting that captures the whole list as one graph. */
    public static final String REPLAY_WHOLE = "whole";
    /** The Replay benchmark's graph settings: the whole list, or a step of this many ops repeated. */
    public static final List<String> REPLAY_GRAPHS = List.of("1024", REPLAY_WHOLE);

    /**
     * The op list of one of {@link #REPLAY_SHAPES}: the random DAGs ({@link #randomDag}), the chain
     * ({@link #linearChain}) or the independent ops ({@link #independent}); with {@code graph} a number
     * K rather than {@link #REPLAY_WHOLE}, its first K ops repeated as often as fit in the same number of
     * ops ({@link OpList#repeat}): a training loop's step, captured once and replayed every step, whose
     * blocks stay in cache, where a whole list of 65,536 ops replayed as one graph does not.
     *
     * @throws IllegalArgumentException for a graph setting that is neither {@code whole} nor a positive number
     */
    public static OpList replayed(String shape, String graph) {
        OpList whole;
        switch (shape) {
            case "chain":
                whole = linearChain();
                break;
            case "independent":
                whole = independent();
                break;
            default:
                whole = randomDag(shape);
        }
        if (graph.equals(REPLAY_WHOLE)) {
            return whole;
        }
        int step;
        try {
            step = Integer.parseInt(graph);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Replay graph '" + graph + "' is neither " + REPLAY_WHOLE + " nor a number of ops", e);
        }
        if (step < 1 || step > whole.size()) {
            throw new IllegalArgumentException("Replay graph of " + step + " ops: use 1 to " + whole.size() + " or " + REPLAY_WHOLE);
        }
        return whole.repeat(step, whole.size() / step);
    }

    /** Nominal work of each copy of the CPU stand-in of ComputeCopyOverlap, µs. */
    public static final int COPY_MICROS = 25;
    /** Nominal work of each compute op of the CPU stand-in of ComputeCopyOverlap, µs. */
    public static final int COMPUTE_MICROS = 50;

    private static String param(Map<String, String> params, String name) {
        String v = params.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing benchmark parameter '" + name + "' (have " + params + ")");
        }
        return v;
    }

    private static int intParam(Map<String, String> params, String name) {
        String v = param(params, name);
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("benchmark parameter " + name + "='" + v + "' is not an integer", e);
        }
    }

    private static void requirePositive(int v, String what) {
        if (v < 1) {
            throw new IllegalArgumentException(what + " must be >= 1, got " + v);
        }
    }
}
