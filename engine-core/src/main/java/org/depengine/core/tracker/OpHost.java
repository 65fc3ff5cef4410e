package org.depengine.core.tracker;

/**
 * What the tracker calls back into: the engine that owns the ops. Implemented by the dispatch core.
 */
public interface OpHost {
    /**
     * Every dependency of {@code op} is met, and it was released by another op's completion (never
     * during the push that registered it: the pusher handles that case itself). Called on the
     * releasing thread, with no tracker lock held.
     */
    void ready(OpBlock op);

    /**
     * {@code op} completed: its function returned, its callback was called, or it was skipped.
     *
     * @param error the op's own failure, or null
     */
    void completed(OpBlock op, Throwable error);

    /**
     * How the engine's pushes register their ops: one instance for all the engine's ops, the same on
     * every call.
     */
    Registration registration();
}
