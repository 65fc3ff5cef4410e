package org.depengine.device.common;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.depengine.api.Context;
import org.depengine.api.device.AsynchronousDevice;
import org.depengine.api.device.Devices;
import org.depengine.api.device.StreamKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of a device over a native driver, apart from the native calls: the open check, the
 * streams and buffers it has made and not yet closed, its completion thread, the native callbacks a
 * close waits for, and the close order. A backend (OpenCL, CUDA, a third one) supplies only the native
 * calls: {@link #newStream}, {@link #newBuffer} and {@link #releaseNative}, and its streams'
 * {@link AsyncStream#release()} and buffers' {@link HandleBuffer#release}. Thread-safe.
 *
 * <p>Locking: making a stream, a buffer or anything else through {@link #whileOpen} holds the read
 * side of one lock, and {@link #close()} holds the write side only while it marks the device closed.
 * So a stream or buffer is either made before the close starts, and then closed by it, or refused
 * with an {@link IllegalStateException} naming the device; the native calls that make it never run
 * concurrently with the native calls that free the device. Those run holding no lock of the device.
 *
 * <p>Close order ({@link #close()}, once):
 * <ol>
 *   <li>the device is marked closed: from here on {@link #checkOpen} throws;</li>
 *   <li>every stream still open is released ({@link AsyncStream#release()}: it finishes its work and
 *       frees its native queue);</li>
 *   <li>the native callbacks counted in {@link #nativeCallbacks()} are awaited, then the tasks handed
 *       to the {@link #completionThread()}, each at most {@link #callbackWait()};</li>
 *   <li>every buffer still allocated is freed ({@link HandleBuffer#release});</li>
 *   <li>{@link #releaseNative()} frees the rest and the native context.</li>
 * </ol>
 * A failure in one stream, buffer or step is logged and the next still runs. If callbacks are still
 * outstanding after the wait (a driver that never reports them), steps 4 and 5 are left out: the
 * buffers and the context stay allocated rather than freed under a callback that may still come, and
 * an error is logged. A backend whose completion thread runs no native call says so with
 * {@link #completionsTouchNative()}; then only the native callbacks hold the freeing back.
 *
 * @param <S> the stream class
 * @param <B> the buffer class
 */
public abstract class NativeDevice<S extends AsyncStream<?, ?>, B extends HandleBuffer<?, ?>>
        extends AsynchronousDevice {
    private static final Logger LOG = LoggerFactory.getLogger(NativeDevice.class);

    /** How long {@link #close()} waits, by default, for each kind of completion callback still due. */
    public static final Duration CALLBACK_WAIT = Duration.ofSeconds(30);

    private final CompletionThread completions;
    /** Callbacks set on the driver and not yet through their native work; {@link #close()} waits for none. */
    private final InFlight nativeCallbacks = new InFlight();
    private final AtomicInteger streamCount = new AtomicInteger();
    /** Streams and buffers not closed yet: {@link #close()} closes them. */
    private final Set<S> streams = ConcurrentHashMap.newKeySet();
    private final Set<B> buffers = ConcurrentHashMap.newKeySet();
    /** Read-held while something is made; write-held while {@link #closed} is set. */
    private final ReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private volatile boolean closed;

    /**
     * A device of {@code context}.
     *
     * @param context the device context
     * @param description a human-readable description
     * @param completionRole the role in the completion thread's name ({@code depengine-<type>-<id>-<role>-<n>})
     */
    protected NativeDevice(Context context, String description, String completionRole) {
        super(context, description);
        this.completions = new CompletionThread(context, Objects.requireNonNull(completionRole, "completionRole"));
    }

    /**
     * A new stream ({@link #newStream}), listed so that {@link #close()} closes it.
     *
     * @throws IllegalStateException if the device is closed
     */
    @Override
    public final S createStream(StreamKind kind) {
        Objects.requireNonNull(kind, "kind");
        S s = whileOpen("create a stream", () -> {
            S made = newStream(kind, streamCount.incrementAndGet());
            streams.add(made);
            return made;
        });
        LOG.debug("{}: created stream {}", context(), s);
        return s;
    }

    /**
     * {@code bytes} bytes of device memory ({@link #newBuffer}), listed so that {@link #close()} frees
     * them if they are still allocated then. The contents are undefined until written.
     *
     * @throws IllegalArgumentException if {@code bytes} is not positive
     * @throws IllegalStateException if the device is closed
     */
    @Override
    public final B allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("buffer size must be > 0 bytes, got " + bytes);
        }
        return whileOpen("allocate a buffer", () -> {
            B b = newBuffer(bytes);
            buffers.add(b);
            return b;
        });
    }

    /**
     * Native: a stream of {@code kind}, numbered {@code number} for its name. Called under the read lock,
     * after the open check; it must not close the device.
     */
    protected abstract S newStream(StreamKind kind, int number);

    /**
     * Native: a buffer of {@code bytes} (positive) bytes. Called under the read lock, after the open
     * check; it must not close the device. A native failure propagates to the caller of {@link #allocate}.
     */
    protected abstract B newBuffer(long bytes);

    /**
     * Native: frees what the device still holds besides its streams and buffers (pools, kernels,
     * programs), then the native context. Called once, by {@link #close()}, holding no lock of the device,
     * after every stream is released, the callbacks are drained and every buffer is freed; never called
     * if callbacks were still outstanding. What it throws is logged.
     */
    protected abstract void releaseNative();

    /**
     * Whether tasks handed to the {@link #completionThread()} make native calls on this device's
     * objects (true unless overridden). If they do, {@link #close()} frees nothing while one still runs
     * after {@link #callbackWait()}; if not, it logs a warning and frees anyway.
     */
    protected boolean completionsTouchNative() {
        return true;
    }

    /** How long {@link #close()} waits for each kind of callback still due: {@link #CALLBACK_WAIT}. */
    protected Duration callbackWait() {
        return CALLBACK_WAIT;
    }

    /**
     * Runs {@code make} while the device is open: under the read lock, after the open check, so the
     * device cannot start closing until it returns. For objects other than streams and buffers (host
     * memory, kernels). {@code make} must not close the device.
     *
     * @param what what is being done, for the error ("build a kernel")
     * @throws IllegalStateException if the device is closed
     */
    protected final <T> T whileOpen(String what, Supplier<T> make) {
        lifecycle.readLock().lock();
        try {
            checkOpen(what);
            return make.get();
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** The thread completion callbacks run on, in the order they are handed over; ended by {@link #close()}. */
    protected final CompletionThread completionThread() {
        return completions;
    }

    /**
     * The count of callbacks set on the driver and not yet through their native work, for a backend
     * whose driver reports completions after its synchronize has returned: {@code begin()} before
     * setting one, {@code end()} once its native work is done. {@link #close()} frees nothing while
     * any is counted.
     */
    protected final InFlight nativeCallbacks() {
        return nativeCallbacks;
    }

    /** Whether {@link #close()} has been called. */
    public final boolean isClosed() {
        return closed;
    }

    /**
     * Checks that the device is open; any thread, any time.
     *
     * @param what what was being done, for the error ("launch kernel 'k'")
     * @throws IllegalStateException naming the device and what to do, if it is closed
     */
    public final void checkOpen(String what) {
        if (closed) {
            throw new IllegalStateException("cannot " + what + ": " + closedMessage());
        }
    }

    /** Why a stream, buffer or other object of this device cannot be used any more, and what to do. */
    protected final String closedMessage() {
        return "device " + context() + " (" + description() + ") was closed, which freed its streams, buffers and "
                + "other native objects (its provider closed it: the last engine using '" + context().deviceType()
                + "' closed, or the application closed the provider). Use objects of the device an open engine "
                + "holds, keep an engine open while you use them, take the device with Devices.acquire and "
                + "release it when done, or set -D" + Devices.KEEP_OPEN_PROPERTY + "=true";
    }

    void streamClosed(AsyncStream<?, ?> s) {
        streams.remove(s);
    }

    void bufferClosed(HandleBuffer<?, ?> b) {
        buffers.remove(b);
    }

    /**
     * Closes the device in the order the class description gives. Called by the provider that opened
     * the device, not while an engine uses it. Idempotent: only the first call closes; a later one
     * returns at once. Failures are logged, never thrown.
     */
    @Override
    public final void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lifecycle.writeLock().unlock();
        }
        try {
            for (S s : List.copyOf(streams)) {
                logFailure(s::closeWithDevice, "closing stream " + s);
            }
            if (!drainCallbacks()) {
                return;
            }
            for (B b : List.copyOf(buffers)) {
                logFailure(b::freeWithDevice, "freeing " + b);
            }
            logFailure(this::releaseNative, "releasing the native objects and context");
            LOG.debug("{}: closed", context());
        } finally {
            completions.close();
        }
    }

    /** Waits for the callbacks still due; whether the native objects may be freed now. */
    private boolean drainCallbacks() {
        Duration wait = callbackWait();
        boolean nativeDone = nativeCallbacks.awaitNone(wait);
        completions.close();
        boolean completionsDone = completions.awaitClosed(wait);
        if (!nativeDone || !completionsDone && completionsTouchNative()) {
            LOG.error("{}: {} native callback(s) outstanding, completion thread {}, {} ms after closing; the device's "
                    + "buffers and native context are left allocated rather than freed under them", context(),
                    nativeCallbacks.count(), completionsDone ? "done" : "still running", wait.toMillis());
            return false;
        }
        if (!completionsDone) {
            LOG.warn("{}: completion callbacks still running {} ms after closing", context(), wait.toMillis());
        }
        return true;
    }

    private void logFailure(Runnable step, String what) {
        try {
            step.run();
        } catch (RuntimeException e) {
            LOG.warn("{}: {} failed", context(), what, e);
        }
    }
}
