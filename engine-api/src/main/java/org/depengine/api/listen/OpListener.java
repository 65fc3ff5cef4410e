package org.depengine.api.listen;

/**
 * Told about each op's life by the engine it was added to with
 * {@link org.depengine.api.Engine#addListener}. Times are {@link System#nanoTime()} values taken by the
 * engine once per event.
 *
 * <p>Rules for implementations: methods are called on the engine's threads (pushers, workers, device
 * callback threads), concurrently, and must be thread-safe, fast and non-blocking; they must not call
 * the engine's waits. A listener that throws is logged and otherwise ignored: it never fails an op.
 * Every op is reported {@code pushed}, then {@code ready}, {@code started}, then for device ops
 * {@code launched}, then exactly one {@code finished}.
 */
public interface OpListener {
    /** The op was registered with the tracker. */
    default void pushed(OpInfo op, long nanoTime) {
    }

    /** Every dependency of the op is met; it is handed to a worker (or run inline). */
    default void ready(OpInfo op, long nanoTime) {
    }

    /** The op starts on the current thread (its function runs next, unless it is skipped). */
    default void started(OpInfo op, long nanoTime) {
    }

    /** A device op's function returned, its device work enqueued; it is not done yet. */
    default void launched(OpInfo op, long nanoTime) {
    }

    /** The op is done, failed or skipped: see {@link OpInfo#outcome()}. */
    default void finished(OpInfo op, long nanoTime) {
    }

    /**
     * {@code producer}'s completion released one of {@code consumer}'s dependencies (a dependency
     * arrow). Reported while {@code producer} finishes, before {@code consumer} is ready.
     */
    default void released(OpInfo producer, OpInfo consumer) {
    }
}
