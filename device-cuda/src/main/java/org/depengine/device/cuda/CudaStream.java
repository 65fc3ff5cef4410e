package org.depengine.device.cuda;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import jcuda.CudaException;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A non-blocking {@code CUstream}. {@link #record()} records a pooled event; {@link #waitFor} is
 * {@code cuStreamWaitEvent} for any CUDA event (the host never blocks) and a host wait for others;
 * {@link #onComplete} enqueues a host function that hands the callback to the device's callback thread;
 * {@link #synchronize()} is {@code cuStreamSynchronize}; {@link #cublas()} is this stream's own cuBLAS
 * handle.
 *
 * <p>Each {@code record()} first recycles the events of this stream that are done, so events that
 * nobody waits for go back to the pool too. Thread-safe; made by {@link CudaDevice#createStream}.
 */
public final class CudaStream implements Stream {
    private static final Logger LOG = LoggerFactory.getLogger(CudaStream.class);

    private final CudaDevice device;
    private final CudaDriver driver;
    private final StreamKind kind;
    private final CUstream stream;
    private final int number;
    private final AtomicReference<Throwable> asyncError = new AtomicReference<>();
    /** Events of record() that may still hold a CUevent, oldest first. Guarded by itself. */
    private final ArrayDeque<CudaEvent> outstanding = new ArrayDeque<>();
    private volatile boolean closed;
    private cublasHandle cublas; // guarded by this

    CudaStream(CudaDevice device, StreamKind kind, CUstream stream, int number) {
        this.device = device;
        this.driver = device.driver();
        this.kind = kind;
        this.stream = stream;
        this.number = number;
    }

    @Override
    public CudaDevice device() {
        return device;
    }

    @Override
    public StreamKind kind() {
        return kind;
    }

    /** The CUDA stream, for launching kernels with JCuda directly. */
    public CUstream cuStream() {
        checkOpen();
        return stream;
    }

    /** {@code cuCtxSetCurrent} with the device's primary context. */
    @Override
    public void bindToCurrentThread() {
        device.bind();
    }

    /**
     * Records a pooled event on this stream.
     *
     * @throws EngineException if CUDA refuses
     */
    @Override
    public Event record() {
        checkOpen();
        device.bind();
        CUevent h = device.events().acquire();
        try {
            driver.recordEvent(h, stream);
        } catch (CudaException e) {
            device.events().release(h);
            throw failure("record an event", e);
        }
        CudaEvent ev = new CudaEvent(device, h);
        synchronized (outstanding) {
            // Work on a stream completes in order: the first pending event ends the sweep.
            while (!outstanding.isEmpty() && outstanding.peekFirst().isDone()) {
                outstanding.pollFirst();
            }
            outstanding.addLast(ev);
        }
        return ev;
    }

    /**
     * For an event of any CUDA device: {@code cuStreamWaitEvent}, returning at once. For any other
     * event: waits on the calling thread.
     */
    @Override
    public void waitFor(Event event) {
        Objects.requireNonNull(event, "event");
        checkOpen();
        if (event instanceof CudaEvent ce && ce.device().driver() == driver) {
            device.bind();
            try {
                ce.enqueueWait(stream);
            } catch (CudaException e) {
                throw failure("wait for an event", e);
            }
        } else {
            event.await();
        }
    }

    /**
     * Runs {@code callback} once the work enqueued so far is done. A host function
     * ({@code cuLaunchHostFunc}) hands it to the device's callback thread, where it runs; an exception
     * it throws is kept for {@link #takeAsyncError()}. Note that CUDA does not run host functions after
     * a sticky context error; {@link #synchronize()} then reports the error.
     */
    @Override
    public void onComplete(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        checkOpen();
        device.bind();
        Runnable run = () -> runCallback(callback);
        try {
            driver.launchHostFunc(stream, () -> dispatch(run));
        } catch (CudaException e) {
            throw failure("enqueue a host function", e);
        }
    }

    private void dispatch(Runnable run) {
        try {
            device.callbacks().execute(run);
        } catch (RejectedExecutionException e) {
            // Only if the executor was shut down: run here rather than lose the callback.
            run.run();
        }
    }

    private void runCallback(Runnable callback) {
        try {
            callback.run();
        } catch (Throwable t) {
            LOG.error("{}: completion callback failed", this, t);
            recordAsyncError(t);
        }
    }

    /**
     * {@code cuStreamSynchronize}, then recycles every event of this stream.
     *
     * @throws EngineException if CUDA reports an error
     */
    @Override
    public void synchronize() {
        checkOpen();
        device.bind();
        try {
            driver.synchronizeStream(stream);
        } catch (CudaException e) {
            throw failure("synchronize", e);
        }
        synchronized (outstanding) {
            while (!outstanding.isEmpty()) {
                outstanding.pollFirst().markDone();
            }
        }
    }

    @Override
    public Throwable takeAsyncError() {
        return asyncError.getAndSet(null);
    }

    /**
     * This stream's cuBLAS handle, created on first use and bound to this stream
     * ({@code cublasSetStream}), so cuBLAS calls through it are ordered with the stream's other work.
     * Use it only from the stream's driving thread.
     *
     * @throws EngineException if cuBLAS cannot be loaded or initialised
     */
    public synchronized cublasHandle cublas() {
        checkOpen();
        if (cublas == null) {
            device.bind();
            try {
                cublasHandle h = driver.cublasCreate();
                driver.cublasSetStream(h, stream);
                cublas = h;
            } catch (CudaException | LinkageError e) {
                throw new EngineException("cuBLAS is not usable on " + this + ": " + e.getMessage(), e);
            }
        }
        return cublas;
    }

    /**
     * Enqueues an asynchronous copy of {@code src}'s remaining bytes to {@code dst} at {@code dstOffset}.
     * {@code src} must be direct (page-locked from {@link CudaDevice#allocateHost} for a truly
     * asynchronous copy), must stay untouched until the copy is done, and its position is not moved.
     */
    public void write(CudaBuffer dst, long dstOffset, ByteBuffer src) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        checkOpen();
        checkCopy(dst, dstOffset, src, "source");
        device.bind();
        try {
            driver.copyHtoDAsync(dst.ptr(), dstOffset, src, stream);
        } catch (CudaException e) {
            throw failure("copy to the device", e);
        }
    }

    /**
     * Enqueues an asynchronous copy of {@code dst.remaining()} bytes of {@code src}, from
     * {@code srcOffset}, into {@code dst}, which must be direct and untouched until the copy is done; its
     * position is not moved.
     */
    public void read(CudaBuffer src, long srcOffset, ByteBuffer dst) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
        checkOpen();
        checkCopy(src, srcOffset, dst, "destination");
        device.bind();
        try {
            driver.copyDtoHAsync(dst, src.ptr(), srcOffset, stream);
        } catch (CudaException e) {
            throw failure("copy from the device", e);
        }
    }

    private void checkCopy(CudaBuffer buffer, long offset, ByteBuffer host, String role) {
        if (!host.isDirect()) {
            throw new IllegalArgumentException("the " + role + " host buffer must be direct (Device.allocateHost)");
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

    /** Synchronizes, destroys the cuBLAS handle, recycles the events, destroys the stream. Idempotent. */
    @Override
    public void close() {
        synchronized (outstanding) {
            if (closed) {
                return;
            }
            closed = true;
        }
        device.bind();
        try {
            driver.synchronizeStream(stream);
        } catch (CudaException e) {
            LOG.warn("{}: cuStreamSynchronize failed while closing: {}", this, e.getMessage());
        }
        synchronized (outstanding) {
            while (!outstanding.isEmpty()) {
                outstanding.pollFirst().markDone();
            }
        }
        synchronized (this) {
            if (cublas != null) {
                try {
                    driver.cublasDestroy(cublas);
                } catch (CudaException e) {
                    LOG.warn("{}: cublasDestroy failed: {}", this, e.getMessage());
                }
                cublas = null;
            }
        }
        try {
            driver.destroyStream(stream);
        } catch (CudaException e) {
            LOG.warn("{}: cuStreamDestroy failed: {}", this, e.getMessage());
        }
        LOG.debug("{}: closed", this);
    }

    /** Events of this stream still listed (done ones leave at the next record or synchronize). */
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

    private EngineException failure(String what, CudaException e) {
        return new EngineException("CUDA error on " + this + ": could not " + what + ": " + e.getMessage(), e);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    @Override
    public String toString() {
        return device.context() + "/" + kind.name().toLowerCase(Locale.ROOT) + "#" + number;
    }
}
