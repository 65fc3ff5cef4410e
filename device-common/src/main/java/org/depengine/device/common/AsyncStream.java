package org.depengine.device.common;

import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bookkeeping of an asynchronous, in-order stream of a {@link NativeDevice}, apart from the native
 * calls: the ledger of recorded events that may still hold a native handle, the first asynchronous
 * error not yet taken, the closed flag, running completion callbacks so that a throwing one is kept,
 * not lost, and closing once, by its user or with its device ({@link #release()} is the native part).
 *
 * <p>Work on an in-order stream completes in order, so {@link #track} first drops the leading events
 * that are done (which recycles their handles): events nobody waits for give their handles back too.
 * Thread-safe.
 *
 * @param <D> the device class
 * @param <E> the event class
 */
public abstract class AsyncStream<D extends NativeDevice<?, ?>, E extends HandleEvent<?>> implements Stream {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncStream.class);

    private final D device;
    private final StreamKind kind;
    private final int number;
    private final AtomicReference<Throwable> asyncError = new AtomicReference<>();
    /** Events recorded that may still hold a handle, oldest first. Guarded by itself. */
    private final ArrayDeque<E> outstanding = new ArrayDeque<>();
    private volatile boolean closed;
    /** Why the stream is closed, for the error of a later use; null while open. */
    private volatile String closedBecause;

    /** Stream {@code number} of {@code device} (the number goes into {@link #toString()}). */
    protected AsyncStream(D device, StreamKind kind, int number) {
        this.device = Objects.requireNonNull(device, "device");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.number = number;
    }

    @Override
    public final D device() {
        return device;
    }

    @Override
    public final StreamKind kind() {
        return kind;
    }

    @Override
    public final Throwable takeAsyncError() {
        return asyncError.getAndSet(null);
    }

    /** Keeps {@code t} for {@link #takeAsyncError()}; a second one while the first is not taken is logged. */
    protected final void recordAsyncError(Throwable t) {
        if (!asyncError.compareAndSet(null, t)) {
            LOG.warn("{}: further asynchronous error while an earlier one is not taken yet", this, t);
        }
    }

    /** Runs a completion callback; what it throws is logged and kept for {@link #takeAsyncError()}. */
    protected final void runCallback(Runnable callback) {
        try {
            callback.run();
        } catch (Throwable t) {
            LOG.error("{}: completion callback failed", this, t);
            recordAsyncError(t);
        }
    }

    /** Lists a newly recorded event, first dropping the leading events that are done. */
    protected final void track(E event) {
        synchronized (outstanding) {
            dropCompleted();
            outstanding.addLast(event);
        }
    }

    /** Drops the leading events that are done (e.g. from a completion callback). */
    protected final void sweep() {
        synchronized (outstanding) {
            dropCompleted();
        }
    }

    private void dropCompleted() {
        // In-order completion: the first pending event ends the sweep.
        while (!outstanding.isEmpty() && outstanding.peekFirst().isDone()) {
            outstanding.pollFirst();
        }
    }

    /**
     * Removes every listed event, applying {@code settle} to each ({@link HandleEvent#markDone()} or
     * {@link HandleEvent#isDone()}): for when the stream's work has all finished.
     */
    protected final void settleAll(Consumer<? super E> settle) {
        synchronized (outstanding) {
            while (!outstanding.isEmpty()) {
                settle.accept(outstanding.pollFirst());
            }
        }
    }

    /**
     * Closes the stream: the first call marks it closed (a later use is an {@link IllegalStateException}),
     * then runs {@link #release()} and has the device forget the stream. Idempotent: a later call returns
     * at once.
     */
    @Override
    public final void close() {
        closeBecause("it was closed");
    }

    /** Closes the stream because its device is closing ({@link NativeDevice#close()}): a later use says so. */
    final void closeWithDevice() {
        closeBecause(device.closedMessage());
    }

    private void closeBecause(String because) {
        synchronized (outstanding) {
            if (closed) {
                return;
            }
            closedBecause = because;
            closed = true;
        }
        try {
            release();
        } finally {
            device.streamClosed(this);
        }
    }

    /**
     * Native: finishes the work enqueued on the stream (and any completion callbacks it waits for) and
     * frees the native queue and what else the stream holds. Called once, by the first {@link #close()}
     * or by the device's close, after the stream is marked closed, holding no lock of the stream or the
     * device. A failure of one native call is logged rather than thrown.
     */
    protected abstract void release();

    /** @throws IllegalStateException if the stream is closed (the message says why) */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed: " + closedBecause);
        }
    }

    /** How many recorded events may still hold a native handle (diagnostics: a leak shows here). */
    public final int outstandingEvents() {
        synchronized (outstanding) {
            return outstanding.size();
        }
    }

    /** {@code <context>/<kind>#<number>}, e.g. {@code opencl:0/compute#3}. */
    @Override
    public String toString() {
        return device.context() + "/" + kind.name().toLowerCase(Locale.ROOT) + "#" + number;
    }
}
