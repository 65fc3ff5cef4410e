package org.depengine.device.cuda;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUevent;
import org.depengine.api.Context;
import org.depengine.api.device.AsynchronousDevice;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Primitive;
import org.depengine.api.device.primitive.PrimitiveSet;
import org.depengine.device.common.BoundedPool;
import org.depengine.device.common.CompletionThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One CUDA GPU. Its primary context is retained once, when the device is opened, and made current on
 * a thread by {@link #bind()} (which every stream's {@code bindToCurrentThread} calls, and which this
 * module calls itself before each CUDA call, so any thread may use its objects).
 *
 * <p>Streams are non-blocking {@code CUstream}s; events come from a pool ({@code CU_EVENT_DISABLE_TIMING});
 * {@link #allocate} is {@code cuMemAlloc}; {@link #allocateHost} is page-locked memory
 * ({@code cuMemHostAlloc}), freed when the returned buffer becomes unreachable. Completion callbacks
 * run on one callback thread per device, never on the driver's thread (a host function must not call
 * CUDA, and a callback might). Thread-safe. Opened by {@link CudaDeviceProvider#device(int)}, which owns
 * it and closes it ({@link #close()}) once no engine uses it.
 */
public final class CudaDevice extends AsynchronousDevice {
    private static final Logger LOG = LoggerFactory.getLogger(CudaDevice.class);
    private static final Cleaner CLEANER = Cleaner.create();

    /**
     * Idle events kept per device. Creating and destroying CUDA events is costly and can serialise
     * launches, while a CUDA event can be recorded again and again; so events go back to the pool once
     * the work they marked is seen done.
     */
    static final int EVENT_POOL_LIMIT = 1024;

    private final CudaDriver driver;
    private final int ordinal;
    private final CUcontext primary;
    private final BoundedPool<CUevent> events;
    private final CompletionThread callbacks;
    private final AtomicInteger streamCount = new AtomicInteger();
    private final AtomicLong pinnedBytes = new AtomicLong();
    private final CudaKernels kernels = new CudaKernels(this);
    private final PrimitiveSet primitives = new PrimitiveSet(new CudaPrimitives(this));

    CudaDevice(Context ctx, CudaDriver driver, int ordinal) {
        super(ctx, Objects.requireNonNullElse(driver.deviceName(ordinal), "CUDA device " + ordinal));
        this.driver = driver;
        this.ordinal = ordinal;
        this.primary = driver.retainPrimaryContext(ordinal);
        // Callers of the pool make the context current first.
        this.events = new BoundedPool<>(EVENT_POOL_LIMIT, driver::createEvent, driver::destroyEvent);
        this.callbacks = new CompletionThread(ctx, "callbacks");
    }

    /** A new non-blocking stream. */
    @Override
    public CudaStream createStream(StreamKind kind) {
        Objects.requireNonNull(kind, "kind");
        bind();
        CudaStream s = new CudaStream(this, kind, driver.createStream(), streamCount.incrementAndGet());
        LOG.debug("{}: created stream {}", context(), s);
        return s;
    }

    /**
     * {@code bytes} of device memory ({@code cuMemAlloc}).
     *
     * @throws IllegalArgumentException if {@code bytes} is not positive
     * @throws jcuda.CudaException if CUDA cannot allocate it
     */
    @Override
    public CudaBuffer allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("buffer size must be > 0 bytes, got " + bytes);
        }
        bind();
        return new CudaBuffer(this, driver.memAlloc(bytes), bytes);
    }

    /**
     * Page-locked host memory ({@code cuMemHostAlloc}) as a native-order direct buffer: copies from and
     * to it are truly asynchronous. The memory is freed ({@code cuMemFreeHost}) once the buffer, and
     * every view of it, is unreachable.
     */
    @Override
    public ByteBuffer allocateHost(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("host buffer size must be > 0 bytes, got " + bytes);
        }
        bind();
        Pointer host = driver.memHostAlloc(bytes);
        ByteBuffer buffer = driver.hostBuffer(host, bytes);
        pinnedBytes.addAndGet(bytes);
        // The action must not reach the buffer, or it would never become unreachable.
        CLEANER.register(buffer, new FreeHost(driver, primary, host, bytes, pinnedBytes, context()));
        return buffer;
    }

    /**
     * Every primitive of {@code org.depengine.api.device.primitive}: {@code Matmul} and {@code axpy} on
     * cuBLAS (the stream's handle), fills and copies on the driver's memset and memcpy, the rest as
     * kernels compiled by NVRTC on first use (once per device) and loaded into the primary context. The
     * NVRTC library ({@code libnvrtc.so} of the CUDA toolkit) is needed only then; without it those
     * calls throw {@link org.depengine.api.EngineException} saying so.
     */
    @Override
    public <P extends Primitive> Optional<P> primitive(Class<P> type) {
        return primitives.find(type);
    }

    /** Makes this device's primary context current on the calling thread ({@code cuCtxSetCurrent}). */
    public void bind() {
        driver.setCurrent(primary);
    }

    /** The retained primary context, for code that calls JCuda directly. */
    public CUcontext primaryContext() {
        return primary;
    }

    /** The CUDA device ordinal. */
    public int ordinal() {
        return ordinal;
    }

    /** Events this device has created in all (they are pooled, so this stays near the peak in flight). */
    public long eventsCreated() {
        return events.created();
    }

    /** Events that exist now (idle in the pool or marking work). */
    public long liveEvents() {
        return events.live();
    }

    /** Events idle in the pool now. */
    public int idleEvents() {
        return events.idle();
    }

    /** Bytes of page-locked host memory from {@link #allocateHost} not yet freed. */
    public long pinnedHostBytes() {
        return pinnedBytes.get();
    }

    CudaDriver driver() {
        return driver;
    }

    CudaKernels kernels() {
        return kernels;
    }

    BoundedPool<CUevent> events() {
        return events;
    }

    CompletionThread callbacks() {
        return callbacks;
    }

    /**
     * Destroys the idle pooled events, ends the callback thread once the callbacks handed to it have run,
     * and releases the primary context, unless page-locked host buffers of {@link #allocateHost} are still
     * reachable: releasing the context would free them under their users' feet, so it stays retained. Called
     * by the provider once no engine uses the device; its streams must be closed before. A failure is
     * logged.
     */
    @Override
    public void close() {
        try {
            bind();
            events.clear();
            if (pinnedBytes.get() == 0) {
                driver.releasePrimaryContext(ordinal);
            } else {
                LOG.debug("{}: primary context kept: {} bytes of page-locked host memory in use", context(),
                        pinnedBytes.get());
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: closing failed", context(), e);
        } finally {
            callbacks.close();
        }
    }

    /** Frees a pinned host allocation; runs on the cleaner's thread. */
    private record FreeHost(CudaDriver driver, CUcontext ctx, Pointer host, long bytes, AtomicLong pinnedBytes,
            Context device) implements Runnable {
        @Override
        public void run() {
            try {
                driver.setCurrent(ctx);
                driver.memFreeHost(host);
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(CudaDevice.class).warn("{}: cuMemFreeHost failed", device, e);
            } finally {
                pinnedBytes.addAndGet(-bytes);
            }
        }
    }
}
