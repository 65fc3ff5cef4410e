package org.depengine.benchmarks;

import org.depengine.api.Context;
import org.depengine.benchmarks.contender.Contender;
import org.depengine.benchmarks.contender.Contenders;
import org.depengine.benchmarks.workload.Workload;

/**
 * One contender on one workload for one JMH trial: made in {@code @Setup(Level.Trial)}, run in the
 * benchmark method, verified after each iteration, closed at the end of the trial.
 */
public final class Trial implements AutoCloseable {
    private final Workload workload;
    private final Contender contender;
    private final int size;
    private long runs;

    /**
     * Wraps a contender made elsewhere (device baselines), then tenures what the trial keeps (see
     * {@link #tenureLongLivedState()}).
     */
    public Trial(Workload workload, Contender contender) {
        this.workload = workload;
        this.contender = contender;
        this.size = workload.ops().size();
        tenureLongLivedState();
    }

    /**
     * Moves what lives for the whole trial (the engine, its variables, a baseline's per-variable state)
     * to the old generation now, as it is in any program that runs for more than a few seconds. Without
     * it, the heap state a fork measures depends on when its first young collections happen: per-op
     * objects linked from young variables or from old ones cost differently (the threaded engines
     * measured 2.5x apart between the two states), and forks of one benchmark, the single-threaded
     * naive engine's included, landed up to 3.5x apart (benchmarks/README.md, "Heap state").
     */
    private static void tenureLongLivedState() {
        System.gc();
    }

    /** A trial of the named contender (engine or baseline) pushing to {@code ctx}. */
    public static Trial open(Workload workload, String contender, Context ctx, boolean profiling) {
        return new Trial(workload, Contenders.create(contender, workload, ctx, profiling));
    }

    /** A trial of the named contender on the CPU, without a profiler. */
    public static Trial open(Workload workload, String contender) {
        return open(workload, contender, Context.cpu(), false);
    }

    /** The workload. */
    public Workload workload() {
        return workload;
    }

    /** The contender, for benchmarks that drive it in parts. */
    public Contender contender() {
        return contender;
    }

    /** One whole run (the timed part of most benchmarks). */
    public void runOnce() {
        contender.runOnce(size);
        runs++;
    }

    /** Notes a run driven in parts through {@link #contender()}. */
    public void countRun() {
        runs++;
    }

    /**
     * Checks the last run against the serial oracle and the contender's own invariants.
     *
     * @throws IllegalStateException if the result is wrong (the benchmark then fails instead of
     *     reporting a time for a broken contender)
     */
    public void verify() {
        if (runs == 0) {
            return;
        }
        workload.verify(contender.name());
        contender.verify();
    }

    @Override
    public void close() {
        contender.close();
    }
}
