package org.depengine.core;

import java.util.Map;
import org.depengine.core.device.EngineDevice;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpRoute;

/**
 * The one interface through which engines differ: where a ready op runs, and whether a device op
 * releases its variables at launch. Everything else (validation, registration, the failure and skip
 * rules, waits, capture and replay, listeners, shutdown) is the core's and the same for every engine.
 * An engine is an {@link AbstractEngine} made with a factory of its policy; the policy gets what it may
 * use of the core through {@link EngineRuntime} (run an op, refuse one, name a thread).
 *
 * <p>An op's way through the policy: {@link #route} on its pusher before it is registered; when it
 * becomes ready, {@link #dispatch} on the thread that made it ready (the pusher itself, inside its push,
 * or the thread whose completion released it); after its push registered it, {@link #pushed} on the
 * pusher.
 */
@SuppressWarnings("exports") // the tracker and device types: the engine modules' only (module-info)
public interface DispatchPolicy {
    /**
     * Before the op is registered, on its pusher: where it goes if it becomes ready on a thread that
     * does not run it. Sets the op's route ({@link OpBlock#setRoute}, a worker group, the pusher's
     * hand-off) or leaves none. {@code device} is its device, or null for an internal op (a wait).
     * Called again for a replay's block each time it is pushed. Must not throw for a valid op.
     */
    void route(OpBlock op, EngineDevice device);

    /**
     * A ready op: runs it on the calling thread ({@link EngineRuntime#run}) or hands it to its route.
     * {@code onPusher}: the caller is the op's pusher, inside its push. Never throws.
     */
    void dispatch(OpBlock op, boolean onPusher);

    /**
     * After a push registered its op (and dispatched it if it was ready), on the pusher. The naive
     * engine runs and waits for the op here; the default returns.
     */
    default void pushed(OpBlock op) {
    }

    /**
     * Whether a device op releases its variables when launched rather than when done: true where the
     * engine's device workers own their streams, so that a successor on the same stream needs no wait.
     * Read once, when the engine is made. The default is false.
     */
    default boolean releasesAtLaunch() {
        return false;
    }

    /**
     * Whether every ready op runs on its pusher's thread, and the push returns once the op is finished
     * (the naive engine): then a replay of a graph whose ops are all synchronous, of one CPU context, runs
     * as one op that runs them in graph order ({@code core.replay}), which gives up no parallelism the
     * engine had (elsewhere only a graph that is a chain does). Read once per graph, when it is captured.
     * The default is false.
     */
    default boolean runsOnPusher() {
        return false;
    }

    /** Stops and joins the policy's threads; called by {@code close()} after every op finished. */
    default void stop() {
    }

    /** Adds the policy's scheduling counters to the engine's diagnostics ({@code handOffs}, {@code wakeUps}). */
    default void addCounters(Map<String, Long> counters) {
    }
}
