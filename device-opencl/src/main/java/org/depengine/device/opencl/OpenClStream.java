package org.depengine.device.opencl;

import static org.jocl.CL.CL_COMPLETE;
import static org.jocl.CL.clCreateCommandQueue;
import static org.jocl.CL.clCreateCommandQueueWithProperties;
import static org.jocl.CL.clEnqueueMarkerWithWaitList;
import static org.jocl.CL.clEnqueueReadBuffer;
import static org.jocl.CL.clEnqueueWriteBuffer;
import static org.jocl.CL.clFinish;
import static org.jocl.CL.clFlush;
import static org.jocl.CL.clReleaseCommandQueue;
import static org.jocl.CL.clSetEventCallback;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.device.common.AsyncStream;
import org.depengine.device.common.HandleEvent;
import org.depengine.device.common.InFlight;
import org.depengine.device.common.NativeDevice;
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
 * each {@code record()} first releases those of the stream's earlier events that have completed
 * ({@link AsyncStream}). {@link #close()} releases the rest. Thread-safe; created by
 * {@link OpenClDevice#createStream}.
 */
public final class OpenClStream extends AsyncStream<OpenClDevice, OpenClEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClStream.class);

    /** One shared JOCL callback object: the per-call state travels in the pooled {@link Hook}. */
    private static final EventCallbackFunction ON_COMPLETE = (event, status, userData) -> ((Hook) userData).handOff(status);

    private final cl_command_queue queue;
    /** This stream's completion callbacks set and not yet through their native work. */
    private final InFlight callbacks = new InFlight();

    OpenClStream(OpenClDevice device, StreamKind kind, int number) {
        super(device, kind, number);
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
        OpenClEvent e = new OpenClEvent(device(), marker("record"));
        track(e);
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
        if (event instanceof OpenClEvent e && e.device() == device()) {
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
     * exception thrown by the callback is kept the same way.
     */
    @Override
    public void onComplete(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        checkOpen();
        cl_event ev = marker("onComplete");
        Hook hook = device().hooks().acquire();
        hook.arm(this, callback, ev);
        callbacks.begin();
        device().callbacks().begin();
        try {
            clSetEventCallback(ev, CL_COMPLETE, ON_COMPLETE, hook);
        } catch (RuntimeException e) {
            hook.arm(null, null, null);
            device().hooks().release(hook);
            device().releaseEvent(ev);
            callbacksEnded();
            throw e instanceof CLException cle ? failure("set an event callback", cle) : e;
        }
    }

    /**
     * Blocks until the work enqueued so far is done ({@code clFinish}), then releases every event of
     * this stream (a failed one keeps its failure for {@code await}).
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
        settleAll(HandleEvent::isDone);
    }

    /**
     * As {@link Memcpy#hostToDevice}, on this queue: enqueues a non-blocking copy of {@code src}'s
     * remaining bytes to {@code dst} at {@code dstOffset}; {@code src} must stay untouched until the copy
     * is done.
     *
     * @throws IllegalArgumentException as {@link Memcpy#hostToDevice} does
     */
    public void write(OpenClBuffer dst, long dstOffset, ByteBuffer src) {
        device().requirePrimitive(Memcpy.class).hostToDevice(this, src, dst, dstOffset);
    }

    /**
     * As {@link Memcpy#deviceToHost}, on this queue: enqueues a non-blocking copy of
     * {@code dst.remaining()} bytes of {@code src}, from {@code srcOffset}, into {@code dst}, which must not
     * be read until the copy is done.
     *
     * @throws IllegalArgumentException as {@link Memcpy#deviceToHost} does
     */
    public void read(OpenClBuffer src, long srcOffset, ByteBuffer dst) {
        device().requirePrimitive(Memcpy.class).deviceToHost(this, src, srcOffset, dst);
    }

    /** The write itself, for {@link OpenClPrimitives} (arguments checked there). */
    void enqueueWrite(OpenClBuffer dst, long dstOffset, ByteBuffer src) {
        try {
            clEnqueueWriteBuffer(queue(), dst.mem(), false, dstOffset, src.remaining(), Pointer.to(src.slice()), 0,
                    null, null);
        } catch (CLException e) {
            throw failure("write a buffer", e);
        }
    }

    /** The read itself, for {@link OpenClPrimitives} (arguments checked there). */
    void enqueueRead(OpenClBuffer src, long srcOffset, ByteBuffer dst) {
        try {
            clEnqueueReadBuffer(queue(), src.mem(), false, srcOffset, dst.remaining(), Pointer.to(dst.slice()), 0,
                    null, null);
        } catch (CLException e) {
            throw failure("read a buffer", e);
        }
    }

    /**
     * Finishes the queue's work, waits for the completion callbacks of that work to come in (the driver
     * reports them after {@code clFinish} returns), then releases the stream's events and the queue; run
     * once by {@link #close()}, or by the device's close. Callbacks set with {@link #onComplete} before
     * the close still run.
     */
    @Override
    protected void release() {
        try {
            clFinish(queue);
        } catch (CLException e) {
            LOG.warn("{}: clFinish failed while closing: {}", this, CL.stringFor_errorCode(e.getStatus()));
        }
        if (!callbacks.awaitNone(NativeDevice.CALLBACK_WAIT)) {
            // Releasing the queue under a callback that may still come is what must not happen.
            LOG.error("{}: {} completion callback(s) still outstanding {} s after clFinish; the command queue is "
                    + "left allocated", this, callbacks.count(), NativeDevice.CALLBACK_WAIT.toSeconds());
            return;
        }
        settleAll(HandleEvent::markDone);
        try {
            clReleaseCommandQueue(queue);
        } catch (CLException e) {
            LOG.warn("{}: clReleaseCommandQueue failed: {}", this, CL.stringFor_errorCode(e.getStatus()));
        }
        LOG.debug("{}: closed", this);
    }

    private void callbacksEnded() {
        callbacks.end();
        device().callbacks().end();
    }

    private cl_event marker(String what) {
        cl_event ev = new cl_event();
        try {
            clEnqueueMarkerWithWaitList(queue, 0, null, ev);
        } catch (CLException e) {
            throw failure(what + " (enqueue a marker)", e);
        }
        device().eventCreated();
        try {
            // Without a flush, a marker may sit in the host-side queue and a wait on it from another
            // queue, or for its callback, may never end.
            clFlush(queue);
        } catch (CLException e) {
            device().releaseEvent(ev);
            throw failure(what + " (flush)", e);
        }
        return ev;
    }

    private EngineException failure(String what, CLException e) {
        return new EngineException("OpenCL error on " + this + ": could not " + what + ": "
                + CL.stringFor_errorCode(e.getStatus()), e);
    }

    /**
     * The state of one pending completion callback, passed to OpenCL as the callback's user data.
     * Pooled ({@link OpenClDevice#hooks()}): one per callback in flight.
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

        /**
         * Called on the OpenCL driver's thread, which JOCL attaches to the JVM as a new Java thread for
         * every callback: the work moves to the device's long-lived completion thread, so that engine
         * completions (and whatever listens to them, e.g. a profiler keeping a buffer per thread) see
         * one stable thread.
         */
        void handOff(int status) {
            stream.device().completions().execute(() -> fire(status));
        }

        /**
         * The native work comes before the callback: once the callback has told the engine that the work
         * is done, the engine may close the stream and the device at once, and nothing of this hook may
         * touch their objects after that.
         */
        private void fire(int status) {
            OpenClStream s = stream;
            Runnable cb = callback;
            cl_event ev = event;
            arm(null, null, null);
            try {
                if (status < 0) {
                    s.recordAsyncError(new EngineException("OpenCL work on " + s + " failed: "
                            + CL.stringFor_errorCode(status)));
                }
                s.device().releaseEvent(ev);
                // The queue is in order: every event recorded before this marker is complete now, so
                // their cl_events can go without waiting for the stream's next record().
                s.sweep();
                s.device().hooks().release(this);
            } finally {
                s.callbacksEnded();
            }
            s.runCallback(cb);
        }
    }
}
