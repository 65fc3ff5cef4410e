package org.depengine.core.tracker;

/**
 * The count of pending ops an op entered at push ({@link OpBlock#account()}), implemented by the
 * dispatch core's pending-op epochs. The op exits it exactly once, at the end of its completion, before
 * it is finished ({@link OpBlock#isFinished()}).
 */
public interface OpAccount {
    /** The op counted here is finished: it leaves the count. */
    void exit();
}
