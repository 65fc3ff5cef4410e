package org.depengine.device.cuda;

import java.util.Objects;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamPolicy;

/**
 * The policy of every CUDA stream: an op's function only enqueues work, so the op is launched when the
 * function returns and done when that work has finished. {@link #whenDone} enqueues a host function
 * ({@code cuLaunchHostFunc}) and returns at once; {@code done} then runs on the device's callback
 * thread.
 */
final class CudaStreamPolicy implements StreamPolicy {
    static final CudaStreamPolicy INSTANCE = new CudaStreamPolicy();

    private CudaStreamPolicy() {
    }

    /** Never: CUDA work is asynchronous. */
    @Override
    public boolean doneOnReturn() {
        return false;
    }

    /** Runs {@code done} once the work enqueued so far on {@code stream} is done; never blocks. */
    @Override
    public void whenDone(Stream stream, Runnable done) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(done, "done");
        stream.onComplete(done);
    }

    @Override
    public String toString() {
        return "CudaStreamPolicy";
    }
}
