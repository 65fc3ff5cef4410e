package org.depengine.benchmarks.report;

import java.util.LinkedHashMap;
import java.util.Map;
import org.depengine.benchmarks.workload.DepGraph;
import org.depengine.benchmarks.workload.OpList;

/**
 * The results of every contender on one workload shape (one benchmark class, one setting of its
 * own parameters) in one run, with what the report derives from them: the serial time, the ideal
 * time, and per contender ns per op, overhead, speed-up and ratios.
 */
final class Group {
    final String workload;
    final String kind;
    final Map<String, String> shape;
    final Map<String, Result> byContender = new LinkedHashMap<>();
    private final OpList ops;
    private final DepGraph graph;

    Group(String workload, String kind, Map<String, String> shape) {
        this.workload = workload;
        this.kind = kind;
        this.shape = shape;
        // A benchmark this report does not know (a newer suite's) gets no op list and no section.
        this.ops = Report.WORKLOADS.contains(workload)
                ? org.depengine.benchmarks.workload.Workloads.forBenchmark(workload, shape) : null;
        this.graph = ops == null ? null : DepGraph.of(ops);
    }

    /** The op list (null for PushCost). */
    OpList ops() {
        return ops;
    }

    /** The op list's dependency graph (null for PushCost). */
    DepGraph graph() {
        return graph;
    }

    /** The contender's median time, ns per run (or per push / op for PushCost); null if absent. */
    Double time(String contender) {
        Result r = byContender.get(contender);
        return r == null || Double.isNaN(r.nanos()) ? null : r.nanos();
    }

    /** Ops per run. */
    int size() {
        return ops == null ? 1 : ops.size();
    }

    /**
     * The ideal time of a run: the longer lane alone for ComputeCopyOverlap when both lanes were
     * measured; else the serial time for work-free ops; else max(critical path, work ÷ cores), both
     * scaled from the measured serial time. Null without a serial time.
     */
    Double ideal(int cores) {
        Double copy = time("copyLane");
        Double compute = time("computeLane");
        if (copy != null && compute != null) {
            return Math.max(copy, compute);
        }
        Double serial = time("serial");
        if (serial == null || ops == null) {
            return null;
        }
        long work = ops.totalWorkNanos();
        if (work == 0) {
            return serial;
        }
        double criticalPath = serial * graph.criticalPathWorkNanos() / work;
        return Math.max(criticalPath, serial / Math.max(1, cores));
    }

    /** (T − T_ideal) ÷ N for the contender, or null. */
    Double overheadPerOp(String contender, int cores) {
        Double t = time(contender);
        Double ideal = ideal(cores);
        return t == null || ideal == null ? null : (t - ideal) / size();
    }

    /** T_serial ÷ T, or null. */
    Double speedup(String contender) {
        Double t = time(contender);
        Double serial = time("serial");
        return t == null || serial == null ? null : serial / t;
    }

    /** T_ideal ÷ T, or null. */
    Double efficiency(String contender, int cores) {
        Double t = time(contender);
        Double ideal = ideal(cores);
        return t == null || ideal == null ? null : ideal / t;
    }

    /** Throughput of {@code contender} over that of {@code baseline} (T_baseline ÷ T), or null. */
    Double throughputRatio(String contender, String baseline) {
        Double t = time(contender);
        Double b = time(baseline);
        return t == null || b == null ? null : b / t;
    }
}
