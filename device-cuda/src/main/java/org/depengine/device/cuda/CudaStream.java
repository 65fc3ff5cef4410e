package org.depengine.device.cuda;

import java.nio.ByteBuffer;
import java.util.Objects;
import jcuda.CudaException;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.device.common.AsyncStream;
import org.depengine.device.common.HandleEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A non-blocking {@code CUstream}. {@link #record()} records a pooled event; {@link #waitFor} is
 * {@code cuStreamWaitEvent} for any CUDA event (the host never blocks) and a host wait for others;
 * {@link #onComplete} enqueues a host function that hands the callback to the device's callback thread;
 * {@link #synchronize()} is {@code cuStreamSynchronize}; {@link #cublas()} is this stream's own cuBLAS
 * handle.
 *
 * <p>Each {@code record()} first recycles the events of this stream that are done ({@link AsyncStream}),
 * so events that nobody waits for go back to the pool too. Thread-safe; made by
 * {@link CudaDevice#createStream}.
 */
public final class CudaStream extends AsyncStream<CudaDevice, CudaEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(CudaStream.class);

    private final CudaDriver driver;
    private final CUstream stream;
    private cublasHandle cublas; // guarded by this

    CudaStream(CudaDevice device, StreamKind kind, CUstream stream, int number) {
        super(device, kind, number);
        this.driver = device.driver();
        this.stream = stream;
    }

    /** The CUDA stream, for launching kernels with JCuda directly. */
    public CUstream cuStream() {
        checkOpen();
        return stream;
    }

    /** {@code cuCtxSetCurrent} with the device's primary context. */
    @Override
    public void bindToCurrentThread() {
        device().bind();
    }

    /**
     * Records a pooled event on this stream.
     *
     * @throws EngineException if CUDA refuses
     */
    @Override
    public Event record() {
        checkOpen();
        device().bind();
        CUevent h = device().events().acquire();
        try {
            driver.recordEvent(h, stream);
        } catch (CudaException e) {
            device().events().release(h);
            throw failure("record an event", e);
        }
        CudaEvent ev = new CudaEvent(device(), h);
        track(ev);
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
            device().bind();
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
        device().bind();
        Runnable run = () -> runCallback(callback);
        try {
            driver.launchHostFunc(stream, () -> device().callbacks().execute(run));
        } catch (CudaException e) {
            throw failure("enqueue a host function", e);
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
        device().bind();
        try {
            driver.synchronizeStream(stream);
        } catch (CudaException e) {
            throw failure("synchronize", e);
        }
        settleAll(HandleEvent::markDone);
    }

    /**
     * This stream's cuBLAS handle, created on first use and bound to this stream
     * ({@code cublasSetStream}), so cuBLAS calls through it are ordered with the stream's other work.
     * Use it only from the stream's driving thread.
     *
     * @throws CublasUnavailableException if cuBLAS cannot be loaded in this process
     * @throws EngineException if cuBLAS fails to initialise
     */
    public synchronized cublasHandle cublas() {
        checkOpen();
        if (cublas == null) {
            device().bind();
            try {
                cublasHandle h = driver.cublasCreate();
                driver.cublasSetStream(h, stream);
                cublas = h;
            } catch (LinkageError e) {
                throw new CublasUnavailableException("cuBLAS cannot be loaded for " + this + ": " + e.getMessage(), e);
            } catch (CudaException e) {
                throw new EngineException("cuBLAS is not usable on " + this + ": " + e.getMessage(), e);
            }
        }
        return cublas;
    }

    /**
     * As {@link Memcpy#hostToDevice}, on this stream: an asynchronous copy of {@code src}'s remaining
     * bytes to {@code dst} at {@code dstOffset} ({@code src} page-locked from {@link CudaDevice#allocateHost}
     * for a truly asynchronous copy, and untouched until the copy is done).
     *
     * @throws IllegalArgumentException as {@link Memcpy#hostToDevice} does
     */
    public void write(CudaBuffer dst, long dstOffset, ByteBuffer src) {
        device().requirePrimitive(Memcpy.class).hostToDevice(this, src, dst, dstOffset);
    }

    /**
     * As {@link Memcpy#deviceToHost}, on this stream: an asynchronous copy of {@code dst.remaining()} bytes
     * of {@code src}, from {@code srcOffset}, into {@code dst}, which must stay untouched until the copy is
     * done.
     *
     * @throws IllegalArgumentException as {@link Memcpy#deviceToHost} does
     */
    public void read(CudaBuffer src, long srcOffset, ByteBuffer dst) {
        device().requirePrimitive(Memcpy.class).deviceToHost(this, src, srcOffset, dst);
    }

    /**
     * Synchronizes (which waits for the host functions of {@link #onComplete} too), recycles the events,
     * destroys the cuBLAS handle and the stream; run once by {@link #close()}, or by the device's close.
     */
    @Override
    protected void release() {
        device().bind();
        try {
            driver.synchronizeStream(stream);
        } catch (CudaException e) {
            LOG.warn("{}: cuStreamSynchronize failed while closing: {}", this, e.getMessage());
        }
        settleAll(HandleEvent::markDone);
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

    private EngineException failure(String what, CudaException e) {
        return new EngineException("CUDA error on " + this + ": could not " + what + ": " + e.getMessage(), e);
    }
}
