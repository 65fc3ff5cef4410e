package org.depengine.benchmarks.report;

import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.runner.IterationType;

/**
 * Records the core-to-core round trip ({@link CoreRoundTrip#fastestNanos}) before and after every
 * measurement iteration, as the secondary result {@value #LABEL} (the larger of the two, in ns): the
 * JSON then holds one value per iteration and fork, beside the iteration's time.
 *
 * <p>Why: on a virtual machine the host may move the two cores while a run goes on. On the 2-core
 * machine of 2026-11-26 the round trip was about 500 ns most of the time and about 70 ns for a
 * minute or more at a time, and the hand-off workloads ran 1.5-3x faster then, on every contender. A fork that
 * disagrees with its sibling is a scheduling mode flip only if both ran at the same round trip; the
 * report ({@link Report}) says which forks did not. Each measure is the fastest of a few rounds, since
 * the benchmark's own threads, still spinning down, only slow a round; taking the larger of the two
 * marks an iteration during which the cores moved as the slower placement.
 *
 * <p>Cost: 5 × {@value #TRIPS} round trips twice per iteration, 15-100 ms, outside the measured time.
 * Warm-up iterations are not measured. Used with {@code -prof
 * org.depengine.benchmarks.report.HostPlacementProfiler} (run.sh adds it to every mode).
 */
public final class HostPlacementProfiler implements InternalProfiler {
    /** The secondary result's name in JMH's output and JSON. */
    static final String LABEL = "·host.coreRoundTrip";
    private static final int TRIPS = 20_000;

    private double before = -1;

    /** JMH instantiates profilers reflectively. */
    public HostPlacementProfiler() {
    }

    @Override
    public String getDescription() {
        return "core-to-core round trip before and after each measurement iteration (host placement)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        before = iteration.getType() == IterationType.MEASUREMENT ? CoreRoundTrip.fastestNanos(TRIPS) : -1;
    }

    @Override
    @SuppressWarnings("rawtypes") // JMH's interface declares the raw type
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
                                                       IterationResult result) {
        if (iteration.getType() != IterationType.MEASUREMENT) {
            return List.of();
        }
        double after = CoreRoundTrip.fastestNanos(TRIPS);
        if (before < 0 || after < 0) {
            return List.of(); // interrupted: no figure rather than a wrong one
        }
        return List.of(new ScalarResult(LABEL, Math.max(before, after), "ns", AggregationPolicy.AVG));
    }
}
