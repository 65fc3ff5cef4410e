package org.depengine.benchmarks.contender;

/**
 * One way of running a {@link org.depengine.benchmarks.workload.Workload}: an engine or a baseline.
 * A run is {@link #reset()}, one or more {@link #submit} calls covering the ops in order, then
 * {@link #awaitAll()}. Pools and engines are made when the contender is made (outside the timed
 * region) and released by {@link #close()}. Used by one benchmark thread at a time.
 */
public interface Contender extends AutoCloseable {
    /** The contender's name, e.g. {@code perdevice} or {@code cf}. */
    String name();

    /** Starts a run: resets the workload's effects and any per-run state. */
    void reset();

    /**
     * Submits ops {@code from} (inclusive) to {@code to} (exclusive); earlier ops must have been
     * submitted in this run. May run them before returning.
     *
     * @throws UnsupportedOperationException if this contender can only run the whole list at once
     *     and the range is not the whole list
     */
    void submit(int from, int to);

    /**
     * Waits until every submitted op has finished.
     *
     * @throws IllegalStateException if an op failed (the cause attached)
     */
    void awaitAll();

    /** One whole run: reset, submit everything, wait. */
    default void runOnce(int size) {
        reset();
        submit(0, size);
        awaitAll();
    }

    /**
     * Checks what the contender itself can check after its runs (an engine: each variable's version).
     * The workload's effects are checked by {@link org.depengine.benchmarks.workload.Workload#verify}.
     *
     * @throws IllegalStateException if something is wrong
     */
    default void verify() {
    }

    /** Releases pools, engines and profilers. Idempotent. */
    @Override
    void close();
}
