package org.depengine.core.tracker;

/**
 * The count of pending ops an op entered at push ({@link OpBlock#account()}), implemented by the
 * dispatch core's pending-op epochs. The op exits it exactly once, at the end of its completion, before
 * it is finished ({@link OpBlock#isFinished()}).
 */
public interface OpAccount {
    /** The op counted here is finished: it leaves the count. */
    void exit();

    /**
     * What one op that stands for {@code n} ops entered here exits when it finishes: all {@code n} (a
     * replay run as one op). This, for 1.
     */
    default OpAccount exiting(int n) {
        if (n == 1) {
            return this;
        }
        return () -> {
            for (int i = 0; i < n; i++) {
                exit();
            }
        };
    }
}
