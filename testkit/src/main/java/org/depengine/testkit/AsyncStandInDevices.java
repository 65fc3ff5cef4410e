package org.depengine.testkit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.device.AbstractDeviceProvider;
import org.depengine.api.device.Availability;
import org.depengine.api.device.AsynchronousDevice;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;

/**
 * The asynchronous stand-in device of the conformance runs ({@link EngineSetup.Ops#ASYNC_DEVICE}), a
 * device plugin that lives only in the tests, found through the ServiceLoader like a third-party jar:
 * type {@value #TYPE}, two devices, no hardware. Each stream is an in-order queue of "device work" run on a pool of
 * device threads: work enqueued with {@link StandInStream#enqueue} runs after everything enqueued before
 * it on that stream, an event marks a point of a stream, and {@link Stream#waitFor} makes a stream wait
 * for another's event without blocking the host, as a GPU does. Ops are launched when their function
 * returns and done when their stream's work up to that point is done.
 */
public final class AsyncStandInDevices extends AbstractDeviceProvider<AsyncStandInDevices.StandInDevice> {
    /** The device type. */
    public static final String TYPE = "testkit_async";

    private static final ExecutorService DEVICE_THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "testkit-async-device");
        t.setDaemon(true);
        return t;
    });
    // Completion callbacks run in stream order, one at a time, as a driver's callback thread runs them.
    private static final ExecutorService COMPLETION_THREAD = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "testkit-async-device-completion");
        t.setDaemon(true);
        return t;
    });

    /** Found by the ServiceLoader. */
    public AsyncStandInDevices() {
        super(TYPE);
    }

    @Override
    protected Availability detect() {
        return Availability.yes();
    }

    @Override
    protected int countDevices() {
        return 2;
    }

    @Override
    protected StandInDevice open(int id) {
        return new StandInDevice(id);
    }

    /** One stand-in device: its streams are {@link StandInStream}s. */
    public static final class StandInDevice extends AsynchronousDevice {
        StandInDevice(int id) {
            super(Context.of(TYPE, id), "testkit asynchronous stand-in device " + id);
        }

        @Override
        public Stream createStream(StreamKind kind) {
            return new StandInStream(this, kind);
        }
    }

    /** A point of a stream: done when the work enqueued on the stream before it is done. */
    private record StandInEvent(CompletableFuture<Void> done) implements Event {
        @Override
        public boolean isDone() {
            return done.isDone();
        }

        @Override
        public void await() {
            done.join();
        }
    }

    /**
     * An in-order queue of device work; a test reaches it as {@code (StandInStream) ctx.stream()} in an op
     * on a {@value #TYPE} context. Thread-safe.
     */
    public static final class StandInStream implements Stream {
        private final StandInDevice device;
        private final StreamKind kind;
        private final AtomicReference<Throwable> asyncError = new AtomicReference<>();
        private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null); // guarded by this
        private volatile Thread boundTo;

        StandInStream(StandInDevice device, StreamKind kind) {
            this.device = device;
            this.kind = kind;
        }

        /**
         * Enqueues device work: it runs on a device thread once the stream's earlier work is done. What
         * it throws is kept and reported by {@link #takeAsyncError()}, as a device reports a fault.
         *
         * @param work the device work
         */
        public synchronized void enqueue(Runnable work) {
            tail = tail.thenRunAsync(() -> {
                try {
                    work.run();
                } catch (RuntimeException | Error e) {
                    asyncError.compareAndSet(null, e); // reported by takeAsyncError, as a device reports a fault
                }
            }, DEVICE_THREADS);
        }

        /**
         * The thread the stream was last bound to ({@link #bindToCurrentThread()}), or null.
         *
         * @return that thread
         */
        public Thread boundTo() {
            return boundTo;
        }

        @Override
        public StandInDevice device() {
            return device;
        }

        @Override
        public StreamKind kind() {
            return kind;
        }

        @Override
        public void bindToCurrentThread() {
            boundTo = Thread.currentThread();
        }

        @Override
        public synchronized Event record() {
            return new StandInEvent(tail);
        }

        /** On the device: later work of this stream starts after the event; the caller does not block. */
        @Override
        public synchronized void waitFor(Event event) {
            if (event instanceof StandInEvent e) {
                tail = tail.thenCombine(e.done(), (a, b) -> null);
            } else {
                event.await();
            }
        }

        @Override
        public synchronized void onComplete(Runnable callback) {
            tail.thenRunAsync(callback, COMPLETION_THREAD);
        }

        @Override
        public void synchronize() {
            CompletableFuture<Void> t;
            synchronized (this) {
                t = tail;
            }
            t.join();
        }

        @Override
        public Throwable takeAsyncError() {
            return asyncError.getAndSet(null);
        }

        @Override
        public void close() {
        }
    }
}
