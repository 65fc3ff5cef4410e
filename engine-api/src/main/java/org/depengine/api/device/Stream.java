package org.depengine.api.device;

/**
 * An ordered lane of work on a device: work enqueued on one stream runs in enqueue order. A stream is
 * driven by one worker thread at a time (its owner), which calls {@link #bindToCurrentThread()} before
 * it enqueues anything; the other methods may be called from any thread unless stated otherwise.
 */
public interface Stream extends AutoCloseable {
    /**
     * The device this stream belongs to.
     *
     * @return the device this stream belongs to
     */
    Device device();

    /**
     * This stream's role.
     *
     * @return this stream's role
     */
    StreamKind kind();

    /**
     * Prepares the calling thread to drive this stream (for CUDA: makes the device's context current).
     * Called by the engine on the worker that owns the stream before the first op, and before each op
     * where streams are shared by several threads.
     */
    void bindToCurrentThread();

    /**
     * Records an event marking all work enqueued so far.
     *
     * @return the event
     */
    Event record();

    /**
     * Makes later work on this stream wait for {@code event}, on the device where it can
     * ({@link Device#supportsStreamWait()}), without blocking the calling thread; otherwise blocking
     * the driving thread until it is done.
     *
     * @param event the event to wait for
     */
    void waitFor(Event event);

    /**
     * Runs {@code callback} once all work enqueued so far is done, on a thread of the device's
     * choosing (possibly the caller, at once, if nothing is pending). The callback must not block.
     *
     * @param callback to run once, when the work enqueued so far is done
     */
    void onComplete(Runnable callback);

    /** Blocks until all work enqueued so far is done. */
    void synchronize();

    /**
     * The first asynchronous error the device reported for work on this stream since the last call,
     * or null; the call clears it.
     *
     * @return the error, or null
     */
    Throwable takeAsyncError();

    /** Releases the stream; the engine closes the streams it created when it closes. */
    @Override
    void close();
}
