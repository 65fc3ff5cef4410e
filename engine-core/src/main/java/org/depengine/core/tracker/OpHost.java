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
     * {@code op} completed (its function returned, its callback or device was done, or it was skipped):
     * the engine's hooks only (its failure ledger, the listener, diagnostics). The op runs the rest of its
     * completion itself afterwards, on the same thread: it releases its variables, leaves its pending
     * count and finishes. Called once per op, on the completing thread; must not throw.
     *
     * @param own the op's own failure, or null (an inherited failure is not the op's)
     */
    void completed(OpBlock op, Failure own);

    /**
     * How the engine's pushes register their ops: one instance for all the engine's ops, the same on
     * every call.
     */
    Registration registration();
}
