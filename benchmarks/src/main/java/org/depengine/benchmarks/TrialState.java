package org.depengine.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The part every benchmark state shares: the trial it opened in its {@code @Setup(Level.Trial)},
 * verified after each iteration (outside the timed region) and closed at the end.
 */
public abstract class TrialState {
    /** Set by the subclass's trial setup. */
    protected Trial trial;

    /** Fails the benchmark if the last run's result differs from a serial run's. */
    @TearDown(Level.Iteration)
    public void verifyIteration() {
        trial.verify();
    }

    /** Releases the contender's engine or pool. */
    @TearDown(Level.Trial)
    public void closeTrial() {
        if (trial != null) {
            trial.close();
        }
    }
}
