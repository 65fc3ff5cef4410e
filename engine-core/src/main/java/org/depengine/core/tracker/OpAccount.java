package org.depengine.core.tracker;

/**
 * The count of pending ops an op entered at push ({@link OpBlock#account()}), implemented by the
 * dispatch core's pending-op epochs. The host exits it exactly once per op, when the op is finished,
 * before {@link OpBlock#markFinished()}.
 */
public interface OpAccount {
    /** The op counted here is finished: it leaves the count. */
    void exit();
}
