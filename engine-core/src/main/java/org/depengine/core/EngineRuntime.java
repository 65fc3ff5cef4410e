package org.depengine.core;

import org.depengine.api.device.Stream;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.dispatch.Dispatcher;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.exec.OpRunner;
import org.depengine.core.tracker.OpBlock;

/**
 * What an engine's {@link DispatchPolicy} may use of the core: running a ready op on the calling
 * thread, refusing one that cannot run, the engine's settings and names. Handed to the policy's
 * factory once, when the engine is made.
 */
@SuppressWarnings("exports") // OpBlock: the engine modules' only
public final class EngineRuntime implements OpRunner {
    private final AbstractEngine engine;
    private final Dispatcher dispatcher;

    EngineRuntime(AbstractEngine engine, Dispatcher dispatcher) {
        this.engine = engine;
        this.dispatcher = dispatcher;
    }

    /** The engine: the owner of the threads the policy starts ({@code EngineThread}). */
    public AbstractEngine engine() {
        return engine;
    }

    /** The settings the engine was made with. */
    public EngineConfig config() {
        return engine.config;
    }

    /** The name of an engine thread: {@code depengine-<engine>-<role>}. */
    public String threadName(String role) {
        return "depengine-" + engine.name() + "-" + role;
    }

    /**
     * Runs a ready op on the calling thread: the skip rules, the function, and its completion when the
     * function returns (sync) or the wait for its callback or device (async, launched). Never throws.
     *
     * @param ownStream the calling worker's stream, or null to use the device's shared stream (bound
     *     to the calling thread first)
     */
    @Override
    public void run(OpBlock op, Stream ownStream) {
        dispatcher.run(op, ownStream, null);
    }

    /**
     * As {@link #run}, on a thread that is not an engine's, whose current-op holder
     * ({@link CurrentOp#otherThreadHolder()}) the caller keeps: no thread-local lookup per op.
     */
    public void run(OpBlock op, Stream ownStream, OpBlock[] currentOp) {
        dispatcher.run(op, ownStream, currentOp);
    }

    /**
     * Fails a ready op that cannot run because its stream could not be had (the device plugin failed
     * to make or bind it), after the skip rules: an op that would be skipped is skipped. Never throws.
     */
    public void refuse(OpBlock op, Throwable cause) {
        dispatcher.refuse(op, cause);
    }

    /** Whether the calling thread is running an op of this engine right now (a nested push). */
    public boolean insideOwnOp() {
        return CurrentOp.ownedBy(engine);
    }
}
