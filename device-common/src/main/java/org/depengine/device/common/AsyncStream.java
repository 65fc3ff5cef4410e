package org.depengine.device.common;

import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.depengine.api.device.Device;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bookkeeping of an asynchronous, in-order stream, apart from the native calls: the ledger of
 * recorded events that may still hold a native handle, the first asynchronous error not yet taken, the
 * closed flag, and running completion callbacks so that a throwing one is kept, not lost.
 *
 * <p>Work on an in-order stream completes in order, so {@link #track} first drops the leading events
 * that are done (which recycles their handles): events nobody waits for give their handles back too.
 * Thread-safe.
 *
 * @param <D> the device class
 * @param <E> the event class
 */
public abstract class AsyncStream<D extends Device, E extends HandleEvent<?>> implements Stream {
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

    /** Marks the stream closed; true only for the first call, which then does the closing. */
    protected final boolean markClosed() {
        return markClosed("it was closed");
    }

    /**
     * Marks the stream closed, saying why in the error of a later use (e.g. its device was closed);
     * true only for the first call, which then does the closing.
     */
    protected final boolean markClosed(String because) {
        synchronized (outstanding) {
            if (closed) {
                return false;
            }
            closedBecause = Objects.requireNonNull(because, "because");
            closed = true;
            return true;
        }
    }

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
