package org.depengine.api.listen;

/**
 * Told about each op's life by the engine it was added to with
 * {@link org.depengine.api.Engine#addListener}. Times are {@link System#nanoTime()} values taken by the
 * engine once per event.
 *
 * <p>Rules for implementations: methods are called on the engine's threads (pushers, workers, device
 * callback threads), concurrently, and must be thread-safe, fast and non-blocking; they must not call
 * the engine's waits. A listener that throws, whatever it throws (an {@link Error} such as an
 * {@code AssertionError} or a {@code StackOverflowError} included), is contained: the op goes on as if
 * the call had returned, the listener is reported once at WARN, and after a few throws it is detached
 * from the engine (it is told nothing more, {@link #closed()} included). A listener never fails an op
 * and never holds up the engine's accounting. Every op is reported {@code pushed}, then {@code ready},
 * {@code started}, then for device ops {@code launched}, then exactly one {@code finished}. A merged op
 * of a bulk ({@link org.depengine.api.Engine#bulk(int)}) also reports each of its members with
 * {@link #memberFinished} between its {@code started} and its {@code finished}.
 */
public interface OpListener {
    /**
     * The op was registered with the tracker.
     *
     * @param op the op
     * @param nanoTime {@link System#nanoTime()} at the event
     */
    default void pushed(OpInfo op, long nanoTime) {
    }

    /**
     * Every dependency of the op is met; it is handed to a worker (or run inline).
     *
     * @param op the op
     * @param nanoTime {@link System#nanoTime()} at the event
     */
    default void ready(OpInfo op, long nanoTime) {
    }

    /**
     * The op starts on the current thread (its function runs next, unless it is skipped).
     *
     * @param op the op
     * @param nanoTime {@link System#nanoTime()} at the event
     */
    default void started(OpInfo op, long nanoTime) {
    }

    /**
     * A device op's function returned, its device work enqueued; it is not done yet.
     *
     * @param op the op
     * @param nanoTime {@link System#nanoTime()} at the event
     */
    default void launched(OpInfo op, long nanoTime) {
    }

    /**
     * The op is done, failed or skipped: see {@link OpInfo#outcome()}.
     *
     * @param op the op
     * @param nanoTime {@link System#nanoTime()} at the event
     */
    default void finished(OpInfo op, long nanoTime) {
    }

    /**
     * One member of a merged op ran, failed or was skipped. A bulk ({@link org.depengine.api.Engine#bulk(int)})
     * pushes consecutive ops as one merged op, reported by the other methods under its own name
     * ({@code bulk[n]: first..last}); its members are not ops of their own (no id, no other event) and
     * are reported here instead, so that a profiler can show them inside the merged op's bar.
     *
     * <p>Called on the thread that runs the merged op, after the merged op's {@link #started} and before
     * its {@link #finished}, once per member, in push order ({@code index} 0, 1, ... n-1), each right
     * after the member ends: every member is reported exactly once, the skipped ones included (those
     * after a member that threw, and those that inherited a failure), so the count is the {@code n} of
     * the merged op's name. A merged op that does not run as a whole (skipped after
     * {@link org.depengine.api.Engine#notifyShutdown()}, or refused when its stream could not be had)
     * reports no member; a bulk flushed with a single member pushes that member as a plain op, which
     * reports none either. The engine calls {@link System#nanoTime()} for members only while a listener is
     * attached. The default does nothing.
     *
     * @param bulk the merged op (valid during the call only, like every {@link OpInfo})
     * @param index the member's position in the merged op, from 0, in push order
     * @param memberName the name the member was pushed with, or {@code "unnamed op"} when it had none
     * @param outcome {@link OpInfo.Outcome#DONE DONE}, {@link OpInfo.Outcome#FAILED FAILED} (its function
     *     threw) or {@link OpInfo.Outcome#SKIPPED SKIPPED} (its function did not run)
     * @param startNanos {@link System#nanoTime()} before its function ran; for a skipped member, when the
     *     skip was decided
     * @param endNanos {@link System#nanoTime()} after its function returned or threw; for a skipped
     *     member, equal to {@code startNanos}
     */
    default void memberFinished(OpInfo bulk, int index, String memberName, OpInfo.Outcome outcome,
                                long startNanos, long endNanos) {
    }

    /**
     * {@code producer}'s completion released one of {@code consumer}'s dependencies (a dependency
     * arrow). Reported while {@code producer} finishes, before {@code consumer} is ready.
     *
     * @param producer the op whose completion released the dependency
     * @param consumer the op that depended on it
     */
    default void released(OpInfo producer, OpInfo consumer) {
    }

    /**
     * The engine this listener is attached to has closed: called once, on the thread that called
     * {@link org.depengine.api.Engine#close()}, after the engine's last op finished and its threads
     * stopped; nothing is reported after it. A listener attached to several engines is told once per
     * engine. Not called for a listener removed (or detached) before the close. The default does
     * nothing; a profiler, for example, stops and writes its last dump here.
     */
    default void closed() {
    }
}
