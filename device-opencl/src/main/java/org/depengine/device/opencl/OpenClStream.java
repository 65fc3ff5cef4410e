package org.depengine.device.opencl;

import static org.jocl.CL.CL_COMPLETE;
import static org.jocl.CL.clCreateCommandQueue;
import static org.jocl.CL.clCreateCommandQueueWithProperties;
import static org.jocl.CL.clEnqueueBarrierWithWaitList;
import static org.jocl.CL.clEnqueueMarkerWithWaitList;
import static org.jocl.CL.clEnqueueReadBuffer;
import static org.jocl.CL.clEnqueueWriteBuffer;
import static org.jocl.CL.clFinish;
import static org.jocl.CL.clFlush;
import static org.jocl.CL.clReleaseCommandQueue;
import static org.jocl.CL.clReleaseEvent;
import static org.jocl.CL.clSetEventCallback;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.EventCallbackFunction;
import org.jocl.Pointer;
import org.jocl.cl_command_queue;
import org.jocl.cl_event;
import org.jocl.cl_queue_properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-order OpenCL command queue: work enqueued on it runs in enqueue order; work on two streams
 * may overlap unless one {@link #waitFor waits} for an event of the other.
 *
 * <p>{@link #record()} enqueues a marker and flushes the queue (a flush is what lets another queue or
 * the host wait for it without a deadlock). {@link #waitFor} enqueues a barrier with the event in
 * its wait list, so the host never blocks for an event of the same device. {@link #onComplete} sets a
 * callback on a marker; OpenCL reports it on a driver thread, and it runs on the device's completion
 * thread. {@link #synchronize()} is {@code clFinish}.
 *
 * <p>No {@code cl_event} outlives the need for it: each is released once it is seen complete, and
 * each {@code record()} first releases those of the stream's earlier events that have completed.
 * {@link #close()} releases the rest. Thread-safe; created by {@link OpenClDevice#createStream}.
 */
public final class OpenClStream implements Stream {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClStream.class);

    /** One shared JOCL callback object: the per-call state travels in the pooled {@link Hook}. */
    private static final EventCallbackFunction ON_COMPLETE = (event, status, userData) -> ((Hook) userData).handOff(status);

    private final OpenClDevice device;
    private final StreamKind kind;
    private final int number;
    private final cl_command_queue queue;
    private final AtomicReference<Throwable> asyncError = new AtomicReference<>();

    /** Events handed out by record() that may still hold their cl_event, oldest first. Guarded by itself. */
    private final ArrayDeque<OpenClEvent> outstanding = new ArrayDeque<>();
    private volatile boolean closed;

    OpenClStream(OpenClDevice device, StreamKind kind, int number) {
        this.device = device;
        this.kind = kind;
        this.number = number;
        this.queue = createQueue(device);
    }

    private static cl_command_queue createQueue(OpenClDevice device) {
        try {
            // Empty properties: an in-order queue without profiling.
            return clCreateCommandQueueWithProperties(device.clContext(), device.clDevice(), new cl_queue_properties(),
                    null);
        } catch (UnsupportedOperationException e) {
            // An OpenCL 1.x platform has only the older entry point.
            return legacyQueue(device);
        }
    }

    @SuppressWarnings("deprecation")
    private static cl_command_queue legacyQueue(OpenClDevice device) {
        return clCreateCommandQueue(device.clContext(), device.clDevice(), 0, null);
    }

    @Override
    public OpenClDevice device() {
        return device;
    }

    @Override
    public StreamKind kind() {
        return kind;
    }

    /** The command queue, for enqueuing work with JOCL directly. */
    public cl_command_queue queue() {
        checkOpen();
        return queue;
    }

    /** Nothing to do: OpenCL calls need no per-thread state. */
    @Override
    public void bindToCurrentThread() {
        // OpenCL has no "current context"; any thread may enqueue on any queue.
    }

    /**
     * Enqueues a marker and flushes the queue. The returned event owns the marker's {@code cl_event}
     * and releases it once it is seen complete.
     *
     * @throws EngineException if OpenCL refuses the marker
     */
    @Override
    public Event record() {
        checkOpen();
        cl_event ev = marker("record");
        OpenClEvent e = new OpenClEvent(device, ev);
        synchronized (outstanding) {
            releaseCompleted();
            outstanding.addLast(e);
        }
        return e;
    }

    /**
     * Makes later work on this queue wait for {@code event}. An event of this device is waited for on
     * the device (a barrier with the event in its wait list), returning at once; any other event is
     * waited for here, blocking the calling thread.
     */
    @Override
    public void waitFor(Event event) {
        Objects.requireNonNull(event, "event");
        checkOpen();
        if (event instanceof OpenClEvent e && e.device() == device) {
            try {
                e.enqueueWait(queue);
            } catch (CLException ex) {
                throw failure("wait for an event", ex);
            }
        } else {
            event.await();
        }
    }

    /**
     * Runs {@code callback} once the work enqueued so far is done: a marker with a completion
     * callback. The callback runs on the device's completion thread (never on the caller), must not block, and
     * should not call into OpenCL beyond enqueueing. If the marked work failed, the error is kept for
     * {@link #takeAsyncError()} and the callback still runs, so that nothing waits forever. An
     * exception thrown by the callback is kept the same way. Callbacks of successive calls may run
     * concurrently and in any order: OpenCL does not order them across events.
     */
    @Override
    public void onComplete(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        checkOpen();
        cl_event ev = marker("onComplete");
        Hook hook = device.hooks().acquire();
        hook.arm(this, callback, ev);
        try {
            clSetEventCallback(ev, CL_COMPLETE, ON_COMPLETE, hook);
        } catch (RuntimeException e) {
            hook.disarm();
            device.hooks().release(hook);
            releaseNative(ev);
            throw e instanceof CLException cle ? failure("set an event callback", cle) : e;
        }
    }

    /**
     * Blocks until the work enqueued so far is done ({@code clFinish}), then releases every event of
     * this stream.
     *
     * @throws EngineException if OpenCL reports an error
     */
    @Override
    public void synchronize() {
        checkOpen();
        try {
            clFinish(queue);
        } catch (CLException e) {
            throw failure("finish", e);
        }
        synchronized (outstanding) {
            // After clFinish every marker of this queue is complete (or failed): release them all.
            while (!outstanding.isEmpty()) {
                outstanding.pollFirst().isDone();
            }
        }
    }

    @Override
    public Throwable takeAsyncError() {
        return asyncError.getAndSet(null);
    }

    /**
     * Enqueues a non-blocking copy of {@code src}'s remaining bytes to {@code dst} at {@code dstOffset}.
     * {@code src} must be a direct buffer, must not be changed or freed until the copy is done (record an
     * event, or use {@link #onComplete}), and its position is not moved.
     *
     * @throws IllegalArgumentException if {@code src} is not direct or the range does not fit in {@code dst}
     */
    public void write(OpenClBuffer dst, long dstOffset, ByteBuffer src) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        checkOpen();
        checkCopy(dst, dstOffset, src, "source");
        try {
            clEnqueueWriteBuffer(queue, dst.mem(), false, dstOffset, src.remaining(), Pointer.to(src.slice()), 0,
                    null, null);
        } catch (CLException e) {
            throw failure("write a buffer", e);
        }
    }

    /**
     * Enqueues a non-blocking copy of {@code dst.remaining()} bytes of {@code src}, from
     * {@code srcOffset}, into {@code dst}. {@code dst} must be a direct buffer, must not be read or freed
     * until the copy is done, and its position is not moved.
     *
     * @throws IllegalArgumentException if {@code dst} is not direct or the range does not fit in {@code src}
     */
    public void read(OpenClBuffer src, long srcOffset, ByteBuffer dst) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
        checkOpen();
        checkCopy(src, srcOffset, dst, "destination");
        try {
            clEnqueueReadBuffer(queue, src.mem(), false, srcOffset, dst.remaining(), Pointer.to(dst.slice()), 0,
                    null, null);
        } catch (CLException e) {
            throw failure("read a buffer", e);
        }
    }

    private void checkCopy(OpenClBuffer buffer, long offset, ByteBuffer host, String role) {
        if (!host.isDirect()) {
            throw new IllegalArgumentException("the " + role + " host buffer must be direct (ByteBuffer.allocateDirect "
                    + "or Device.allocateHost): an asynchronous copy cannot use a heap buffer");
        }
        if (buffer.device() != device) {
            throw new IllegalArgumentException("buffer of " + buffer.device().context() + " used on a stream of "
                    + device.context());
        }
        if (offset < 0 || offset + host.remaining() > buffer.size()) {
            throw new IllegalArgumentException("copy of " + host.remaining() + " bytes at offset " + offset
                    + " does not fit in a buffer of " + buffer.size() + " bytes");
        }
    }

    /**
     * Finishes the queue's work, releases its events and the queue. Idempotent. Callbacks set with
     * {@link #onComplete} before the close still run.
     */
    @Override
    public void close() {
        synchronized (outstanding) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            clFinish(queue);
        } catch (CLException e) {
            LOG.warn("{}: clFinish failed while closing: {}", this, CL.stringFor_errorCode(e.getStatus()));
        }
        synchronized (outstanding) {
            while (!outstanding.isEmpty()) {
                outstanding.pollFirst().releaseIfHeld();
            }
        }
        clReleaseCommandQueue(queue);
        LOG.debug("{}: closed", this);
    }

    /** The number of events of this stream that may still hold a {@code cl_event}. */
    int outstandingEvents() {
        synchronized (outstanding) {
            return outstanding.size();
        }
    }

    void recordAsyncError(Throwable t) {
        if (!asyncError.compareAndSet(null, t)) {
            LOG.warn("{}: further asynchronous error while an earlier one is not taken yet", this, t);
        }
    }

    void releaseNative(cl_event ev) {
        try {
            clReleaseEvent(ev);
        } catch (CLException e) {
            LOG.warn("{}: clReleaseEvent failed: {}", this, CL.stringFor_errorCode(e.getStatus()));
        } finally {
            device.eventReleased();
        }
    }

    /** {@link #releaseCompleted()} under the lock, from a completion callback. */
    void sweepCompleted() {
        synchronized (outstanding) {
            releaseCompleted();
        }
    }

    /** Releases the cl_events of leading events that have completed; stops at the first still pending. */
    private void releaseCompleted() {
        // The queue is in order, so markers complete in order: the first pending one ends the sweep.
        while (!outstanding.isEmpty() && outstanding.peekFirst().isDone()) {
            outstanding.pollFirst();
        }
    }

    private cl_event marker(String what) {
        cl_event ev = new cl_event();
        try {
            clEnqueueMarkerWithWaitList(queue, 0, null, ev);
        } catch (CLException e) {
            throw failure(what + " (enqueue a marker)", e);
        }
        device.eventCreated();
        try {
            // Without a flush, a marker may sit in the host-side queue and a wait on it from another
            // queue, or for its callback, may never end.
            clFlush(queue);
        } catch (CLException e) {
            releaseNative(ev);
            throw failure(what + " (flush)", e);
        }
        return ev;
    }

    private EngineException failure(String what, CLException e) {
        return new EngineException("OpenCL error on " + this + ": could not " + what + ": "
                + CL.stringFor_errorCode(e.getStatus()), e);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    @Override
    public String toString() {
        return device.context() + "/" + kind.name().toLowerCase(java.util.Locale.ROOT) + "#" + number;
    }

    /**
     * The state of one pending completion callback, passed to OpenCL as the callback's user data.
     * Pooled: one per callback in flight.
     */
    static final class Hook {
        private OpenClStream stream;
        private Runnable callback;
        private cl_event event;

        void arm(OpenClStream s, Runnable cb, cl_event ev) {
            stream = s;
            callback = cb;
            event = ev;
        }

        void disarm() {
            stream = null;
            callback = null;
            event = null;
        }

        /** On the driver's thread: run the callback, release the marker, return to the pool. */
        /**
         * Called on the OpenCL driver's thread, which JOCL attaches to the JVM as a new Java thread for
         * every callback: the work moves to the device's long-lived completion thread, so that engine
         * completions (and whatever listens to them, e.g. a profiler keeping a buffer per thread) see
         * one stable thread.
         */
        void handOff(int status) {
            OpenClStream s = stream;
            s.device.completions().execute(() -> fire(status));
        }

        void fire(int status) {
            OpenClStream s = stream;
            Runnable cb = callback;
            cl_event ev = event;
            disarm();
            try {
                if (status < 0) {
                    s.recordAsyncError(new EngineException("OpenCL work on " + s + " failed: "
                            + CL.stringFor_errorCode(status)));
                }
                cb.run();
            } catch (Throwable t) {
                // Nothing above this frame can handle it (a native thread): keep it for the engine.
                LOG.error("{}: completion callback failed", s, t);
                s.recordAsyncError(t);
            } finally {
                s.releaseNative(ev);
                s.device.hooks().release(this);
                // The queue is in order: every event recorded before this marker is complete now, so
                // their cl_events can go without waiting for the stream's next record().
                s.sweepCompleted();
            }
        }
    }

    /** A bounded pool of {@link Hook}s. */
    static final class HookPool {
        private final ConcurrentLinkedQueue<Hook> free = new ConcurrentLinkedQueue<>();
        private final AtomicInteger pooled = new AtomicInteger();
        private final AtomicInteger created = new AtomicInteger();
        private final int limit;

        HookPool(int limit) {
            this.limit = limit;
        }

        Hook acquire() {
            Hook h = free.poll();
            if (h != null) {
                pooled.decrementAndGet();
                return h;
            }
            created.incrementAndGet();
            return new Hook();
        }

        void release(Hook h) {
            if (pooled.incrementAndGet() <= limit) {
                free.offer(h);
            } else {
                pooled.decrementAndGet();
            }
        }

        int created() {
            return created.get();
        }

        int pooled() {
            return pooled.get();
        }
    }
}
