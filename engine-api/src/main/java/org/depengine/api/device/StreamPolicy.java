package org.depengine.api.device;

/**
 * How an op runs on a stream and when it counts as launched and as done (OneFlow's StreamPolicy).
 * An op's function runs on the stream's worker and enqueues device work; when it returns the op is
 * <em>launched</em>. It is <em>done</em> when that work has finished; only then are ops that depend on
 * it on the host or on other devices released.
 *
 * <p>There are two policies, {@link #SYNCHRONOUS} and {@link #ON_COMPLETION}, and every device of this
 * project uses one of them; a device implements its own only where an op's completion is really
 * decided otherwise. Implementations are stateless and thread-safe.
 */
public interface StreamPolicy {
    /** The policy of synchronous lanes (the CPU): an op is done when its function returns. */
    StreamPolicy SYNCHRONOUS = new StreamPolicy() {
        @Override
        public boolean doneOnReturn() {
            return true;
        }

        @Override
        public void whenDone(Stream stream, Runnable done) {
            done.run();
        }

        @Override
        public String toString() {
            return "StreamPolicy.SYNCHRONOUS";
        }
    };

    /**
     * The policy of asynchronous streams (OpenCL, CUDA, most plugins): an op is launched when its
     * function returns and done when the stream's completion callback fires for the work enqueued so
     * far ({@link Stream#onComplete}). {@link #whenDone} never blocks; {@code done} runs on the
     * stream's callback thread.
     */
    StreamPolicy ON_COMPLETION = new StreamPolicy() {
        @Override
        public boolean doneOnReturn() {
            return false;
        }

        @Override
        public void whenDone(Stream stream, Runnable done) {
            java.util.Objects.requireNonNull(done, "done");
            stream.onComplete(done);
        }

        @Override
        public String toString() {
            return "StreamPolicy.ON_COMPLETION";
        }
    };

    /**
     * Whether an op is done as soon as its function has returned.
     *
     * @return whether an op is done as soon as its function has returned
     */
    boolean doneOnReturn();

    /**
     * Called on the driving thread right after a launched op's function returned, when
     * {@link #doneOnReturn()} is false: runs {@code done} once the work the op enqueued on
     * {@code stream} has finished (for example from an event callback), never blocking the caller.
     * {@code done} must be run exactly once: engines ignore a second run (logging one WARN naming the
     * device), and if this method throws without having run {@code done}, the op fails with an
     * {@link org.depengine.api.EngineException} naming the device type.
     *
     * @param stream the stream the op's work was enqueued on
     * @param done to run once, when the op's work is done
     */
    void whenDone(Stream stream, Runnable done);
}
