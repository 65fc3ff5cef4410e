package org.depengine.core.replay;

import java.util.ArrayList;
import java.util.List;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Graph;
import org.depengine.core.tracker.OpDef;

/**
 * An open {@link Capture}: the ops its thread pushed to its engine so far, until it ends. The list is
 * the owner thread's alone; the graph, once made, is published through a volatile field.
 */
public final class CaptureSession implements Capture {
    private final ReplayHost engine;
    private final Thread owner = Thread.currentThread();
    private final List<RecordedOp> ops = new ArrayList<>();
    private volatile RecordedGraph graph; // null while recording

    private CaptureSession(ReplayHost engine) {
        this.engine = engine;
    }

    /**
     * Opens a capture of the calling thread's pushes to {@code engine}.
     *
     * @throws IllegalStateException if this thread records a capture already
     */
    public static CaptureSession open(ReplayHost engine) {
        Captures.refuse("capture() of engine '%s'", engine.name());
        CaptureSession c = new CaptureSession(engine);
        Captures.started(c);
        return c;
    }

    /**
     * Records a validated op pushed by the owner thread to {@code to}.
     *
     * @throws IllegalStateException if {@code to} is another engine than the captured one
     */
    public void record(ReplayHost to, OpDef def, Context ctx, int priority, boolean profiling) {
        if (to != engine) {
            throw new IllegalStateException("op '" + RecordedGraph.label(def)
                    + "' was pushed to another engine ('" + to.name() + "') while this thread records " + this
                    + ": a graph replays on one engine. Push it after closing the capture, or capture it on its own engine");
        }
        ops.add(new RecordedOp(def, ctx, priority, profiling));
    }

    /** Whether this capture records {@code e}'s pushes. */
    public boolean records(ReplayHost e) {
        return e == engine;
    }

    @Override
    public Graph graph() {
        RecordedGraph g = graph;
        if (g != null) {
            return g;
        }
        requireOwner("graph()");
        end();
        return graph;
    }

    @Override
    public void close() {
        if (graph != null) {
            return;
        }
        requireOwner("close()");
        end();
    }

    private void end() {
        graph = new RecordedGraph(engine, ops.toArray(new RecordedOp[0]));
        Captures.ended(this);
    }

    private void requireOwner(String call) {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException(call + " of " + this + " was called on thread " + Thread.currentThread().getName()
                    + "; only the thread that opened it may end the recording (it stays open)");
        }
    }

    @Override
    public String toString() {
        return "a capture of engine '" + engine.name() + "' (opened on thread " + owner.getName() + ", " + ops.size()
                + " ops recorded)";
    }
}
