package org.depengine.api;

/**
 * A recording of the pushes one thread makes to one engine, opened by {@link Engine#capture()}: while
 * it is open, every op that thread pushes to that engine is validated and recorded instead of run, and
 * {@link #graph()} turns the recording into a {@link Graph} that pushes the same ops again with one call.
 *
 * <pre>{@code
 * Graph step;
 * try (Capture c = engine.capture()) {
 *     engine.op("forward").reads(x, w).writes(h).run(ctx -> forward());
 *     engine.op("backward").reads(h).writes(g).run(ctx -> backward());
 *     step = c.graph();
 * }
 * for (int batch = 0; batch < batches; batch++) {
 *     loadBatch(x, batch);   // per-step data flows through what the closures read
 *     step.replay();
 * }
 * }</pre>
 *
 * <p>Only the thread that opened it records, and only that thread may end it; other threads push and
 * wait as usual meanwhile. See {@link Engine#capture()} for what is recorded and what is refused.
 */
public interface Capture extends AutoCloseable {

    /**
     * Ends the recording, if it is still open, and returns the graph of the ops recorded, in the order
     * they were pushed. Every call returns the same graph; after the recording has ended it may be
     * called from any thread.
     *
     * @return the recorded graph (possibly empty)
     * @throws IllegalStateException if the recording is still open and this is not the thread that opened it
     */
    Graph graph();

    /**
     * Ends the recording: this thread's pushes run again as usual. The ops recorded so far stay
     * available through {@link #graph()}. Idempotent.
     *
     * @throws IllegalStateException if the recording is open and this is not the thread that opened it
     *     (the recording stays open)
     */
    @Override
    void close();
}
