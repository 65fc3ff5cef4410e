package org.depengine.benchmarks.report;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One JMH result: a benchmark method with its parameters, as the report uses it.
 *
 * @param workload the benchmark class's simple name, e.g. {@code RandomDag}
 * @param method the benchmark method, e.g. {@code engine}
 * @param params every JMH parameter of the result
 * @param nanos the median of the measurement iterations, in ns per operation (a whole run for
 *     the workload benchmarks, one push or one op for PushCost)
 * @param errorNanos JMH's 99.9 % confidence half-width, in ns (NaN when not computed)
 * @param forkSpread the slowest fork's median iteration over the fastest fork's (NaN with fewer than
 *     two forks): above 1.5, the forks landed in different scheduling modes, or ran at different
 *     host placements (below)
 * @param forkRoundTrips each fork's median core-to-core round trip over its measurement iterations, in
 *     ns ({@link HostPlacementProfiler}); empty when not recorded
 */
record Result(String workload, String method, Map<String, String> params, double nanos, double errorNanos,
              double forkSpread, List<Double> forkRoundTrips) {
    /**
     * Round trips further apart than this factor are different host placements: the two seen on the
     * 2-core machines were about 70 and about 500 ns, and a busy machine's readings spread by far less.
     */
    static final double PLACEMENT_SPLIT = 2.0;

    Result {
        forkRoundTrips = List.copyOf(forkRoundTrips);
    }

    /** A result without host placements. */
    Result(String workload, String method, Map<String, String> params, double nanos, double errorNanos,
           double forkSpread) {
        this(workload, method, params, nanos, errorNanos, forkSpread, List.of());
    }

    /** A result without per-fork data. */
    Result(String workload, String method, Map<String, String> params, double nanos, double errorNanos) {
        this(workload, method, params, nanos, errorNanos, Double.NaN);
    }

    /** The median of the forks' round trips, in ns; NaN when not recorded. */
    double roundTrip() {
        return median(forkRoundTrips.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** Whether two of the forks ran at different host placements (round trips over {@link #PLACEMENT_SPLIT} apart). */
    boolean forksMovedHost() {
        double min = forkRoundTrips.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = forkRoundTrips.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return min > 0 && max / min > PLACEMENT_SPLIT;
    }

    /** Whether this result and {@code other} ran at different host placements (false if either is not recorded). */
    boolean otherPlacementThan(Result other) {
        double a = roundTrip();
        double b = other.roundTrip();
        return a > 0 && b > 0 && Math.max(a, b) / Math.min(a, b) > PLACEMENT_SPLIT;
    }

    /** The median of {@code v} (sorted in place); NaN when empty. */
    static double median(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
    private static final java.util.Set<String> CONTENDER_PARAMS = java.util.Set.of("engine", "bulkEngine", "baseline", "profiling");

    /** The contender: engine name (with "+profiler" when profiling is on), baseline name or "dexecutor". */
    String contender() {
        String engine = params.containsKey("engine") ? params.get("engine") : params.get("bulkEngine");
        if (engine != null) {
            return "on".equals(params.get("profiling")) ? engine + "+profiler" : engine;
        }
        String baseline = params.get("baseline");
        return baseline != null ? baseline : method;
    }

    /** Whether the contender is an engine. */
    boolean isEngine() {
        return params.containsKey("engine") || params.containsKey("bulkEngine");
    }

    /** The workload's own parameters (the contender's left out), sorted by name. */
    Map<String, String> shapeParams() {
        Map<String, String> m = new TreeMap<>(params);
        m.keySet().removeAll(CONTENDER_PARAMS);
        return m;
    }

    /** For PushCost: {@code push} or {@code latency}; for the others, empty. */
    String kind() {
        if (method.startsWith("push")) {
            return "push";
        }
        if (method.startsWith("latency")) {
            return "latency";
        }
        return "";
    }
}
