package org.depengine.core.wait;

import java.util.LinkedHashSet;
import org.depengine.core.tracker.Failure;

/**
 * An engine's failures that no wait has reported yet, in completion order: an op's failure is recorded
 * when it completes (a bulk member's when it throws), and leaves when a wait reports it (see
 * {@link Waits}), so that nothing keeps a reported throwable. Thread-safe.
 */
public final class FailureLedger {
    // Guarded by itself: failures are rare, and a removal must be O(1).
    private final LinkedHashSet<Failure> failures = new LinkedHashSet<>();

    /** An op failed: its failure waits to be reported. */
    public void record(Failure f) {
        synchronized (failures) {
            failures.add(f);
        }
    }

    /** Takes every unreported failure, in completion order. */
    public Failure[] takeAll() {
        synchronized (failures) {
            Failure[] all = failures.toArray(new Failure[0]);
            failures.clear();
            return all;
        }
    }

    /** {@code f} was reported through its variable: the ledger forgets it. */
    public void remove(Failure f) {
        synchronized (failures) {
            failures.remove(f);
        }
    }
}
