package org.depengine.core.exec;

import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.core.tracker.OpBlock;

/**
 * A thread started by an engine. It remembers the op it is running, so the engine can refuse a wait
 * from inside an op without a thread-local lookup.
 */
public class EngineThread extends Thread {
    private static final AtomicInteger NEXT_CELL = new AtomicInteger();
    private final Object engine;
    /**
     * The op this thread is running, or null. Written by this thread only; read by it, and racily by
     * diagnostics on another thread (a plain field: a snapshot may see a stale op, never a torn one).
     */
    public OpBlock currentOp;
    /**
     * Which of the pending-op counter's cells this thread updates (the counter takes it modulo its
     * cells): handed out in turn at construction, so that an engine's threads share none.
     */
    public final int countCell = NEXT_CELL.getAndIncrement();

    /**
     * @param engine the engine that owns the thread
     * @param name the thread's name
     */
    public EngineThread(Object engine, String name) {
        super(name);
        this.engine = engine;
    }

    /** Starts the thread as a daemon: an engine's threads never keep the JVM alive. */
    @Override
    public void start() {
        setDaemon(true); // here, not in the constructor, which must not call overridable methods on this
        super.start();
    }

    /** The engine that owns this thread. */
    public Object engine() {
        return engine;
    }
}
