package org.depengine.core.tracker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One op's failure, shared by every variable it spread to. Reporting it (rethrowing from a wait)
 * clears it everywhere at once: variables keep the record, but a reported record no longer counts.
 */
public final class Failure {
    private static final VarHandle REPORTED;

    static {
        try {
            REPORTED = MethodHandles.lookup().findVarHandle(Failure.class, "reported", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Throwable error;
    private final String opName;
    @SuppressWarnings("unused") // accessed through REPORTED
    private volatile boolean reported;

    /**
     * @param error the op's throwable, kept as the same instance
     * @param opName the failed op, for messages
     */
    public Failure(Throwable error, String opName) {
        this.error = error;
        this.opName = opName;
    }

    /** The original throwable. */
    public Throwable error() {
        return error;
    }

    /** The name of the op that failed. */
    public String opName() {
        return opName;
    }

    /** Whether it has not been reported yet. */
    public boolean isActive() {
        return !reported;
    }

    /** Claims the right to report this failure: true for exactly one caller. */
    public boolean markReported() {
        return REPORTED.compareAndSet(this, false, true);
    }

    @Override
    public String toString() {
        return "op '" + opName + "' failed: " + error;
    }
}
