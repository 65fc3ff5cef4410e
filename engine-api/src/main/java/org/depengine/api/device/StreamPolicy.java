package org.depengine.api.device;

/**
 * How an op runs on a stream and when it counts as launched and as done (OneFlow's StreamPolicy).
 * An op's function runs on the stream's worker and enqueues device work; when it returns the op is
 * <em>launched</em>. It is <em>done</em> when that work has finished; only then are ops that depend on
 * it on the host or on other devices released.
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
    };

    /** Whether an op is done as soon as its function has returned. */
    boolean doneOnReturn();

    /**
     * Called on the driving thread right after a launched op's function returned, when
     * {@link #doneOnReturn()} is false: runs {@code done} once the work the op enqueued on
     * {@code stream} has finished (for example from an event callback), never blocking the caller.
     * {@code done} must be run exactly once: engines ignore a second run (logging one WARN naming the
     * device), and if this method throws without having run {@code done}, the op fails with an
     * {@link org.depengine.api.EngineException} naming the device type.
     */
    void whenDone(Stream stream, Runnable done);
}
