package org.depengine.benchmarks.report;

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
 *     two forks): above 1.5, the forks landed in different scheduling modes
 */
record Result(String workload, String method, Map<String, String> params, double nanos, double errorNanos,
              double forkSpread) {

    /** A result without per-fork data. */
    Result(String workload, String method, Map<String, String> params, double nanos, double errorNanos) {
        this(workload, method, params, nanos, errorNanos, Double.NaN);
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
