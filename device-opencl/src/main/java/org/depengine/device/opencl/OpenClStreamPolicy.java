package org.depengine.device.opencl;

import java.util.Objects;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamPolicy;

/**
 * The policy of every OpenCL stream: an op's function only enqueues work, so the op is launched when
 * the function returns and done when that work has finished. {@link #whenDone} enqueues a marker with
 * a completion callback and returns at once; the callback (on the device's completion thread) runs
 * {@code done}.
 */
final class OpenClStreamPolicy implements StreamPolicy {
    static final OpenClStreamPolicy INSTANCE = new OpenClStreamPolicy();

    private OpenClStreamPolicy() {
    }

    /** Never: OpenCL work is asynchronous. */
    @Override
    public boolean doneOnReturn() {
        return false;
    }

    /**
     * Runs {@code done} from the completion callback of a marker enqueued now on {@code stream}; never
     * blocks. A failure of the marked work is kept for {@link Stream#takeAsyncError()} and {@code done}
     * still runs, so the engine can report it instead of hanging.
     */
    @Override
    public void whenDone(Stream stream, Runnable done) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(done, "done");
        stream.onComplete(done);
    }

    @Override
    public String toString() {
        return "OpenClStreamPolicy";
    }
}
