package org.depengine.device.cuda;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUevent;
import org.depengine.api.Context;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Primitive;
import org.depengine.api.device.primitive.PrimitiveSet;
import org.depengine.device.common.BoundedPool;
import org.depengine.device.common.CompletionThread;
import org.depengine.device.common.NativeDevice;
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
 * CUDA, and a callback might). Thread-safe.
 *
 * <p>Lifetime: opened by {@link CudaDeviceProvider#device(int)}, which owns it and closes it
 * ({@link #close()}; see {@link org.depengine.api.device.Devices} for when), in {@link NativeDevice}'s
 * order: streams synchronised and destroyed, callbacks run, buffers freed, then the pooled events and
 * the primary context. A stream or buffer of a closed device fails with an {@link IllegalStateException}
 * naming the device; the device itself then makes no stream or buffer.
 */
public final class CudaDevice extends NativeDevice<CudaStream, CudaBuffer> {
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
    private final AtomicLong pinnedBytes = new AtomicLong();
    private final CudaKernels kernels = new CudaKernels(this);
    private final PrimitiveSet primitives = new PrimitiveSet(new CudaPrimitives(this));
    /** Whether the close has freed the streams and buffers, so the primary context may go. */
    private volatile boolean nativeReleased;
    /** Whether the retained primary context has been released (once: at close, or by the last pinned free). */
    private final AtomicBoolean contextReleased = new AtomicBoolean();

    CudaDevice(Context ctx, CudaDriver driver, int ordinal) {
        super(ctx, Objects.requireNonNullElse(driver.deviceName(ordinal), "CUDA device " + ordinal), "callbacks");
        this.driver = driver;
        this.ordinal = ordinal;
        this.primary = driver.retainPrimaryContext(ordinal);
        // Callers of the pool make the context current first.
        this.events = new BoundedPool<>(EVENT_POOL_LIMIT, driver::createEvent, driver::destroyEvent);
    }

    /** A new non-blocking {@code CUstream}. */
    @Override
    protected CudaStream newStream(StreamKind kind, int number) {
        bind();
        return new CudaStream(this, kind, driver.createStream(), number);
    }

    /** {@code cuMemAlloc}; a {@link jcuda.CudaException} if CUDA cannot allocate it. */
    @Override
    protected CudaBuffer newBuffer(long bytes) {
        bind();
        return new CudaBuffer(this, driver.memAlloc(bytes), bytes);
    }

    /**
     * Page-locked host memory ({@code cuMemHostAlloc}) as a native-order direct buffer: copies from and
     * to it are truly asynchronous. The memory is freed ({@code cuMemFreeHost}) once the buffer, and
     * every view of it, is unreachable, even after the device has closed (the primary context is released
     * only once the last of them is freed).
     *
     * @throws IllegalStateException if the device is closed
     */
    @Override
    public ByteBuffer allocateHost(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("host buffer size must be > 0 bytes, got " + bytes);
        }
        return whileOpen("allocate host memory", () -> {
            bind();
            Pointer host = driver.memHostAlloc(bytes);
            ByteBuffer buffer = driver.hostBuffer(host, bytes);
            pinnedBytes.addAndGet(bytes);
            // The action must not reach the buffer, or it would never become unreachable.
            CLEANER.register(buffer, new FreeHost(this, host, bytes));
            return buffer;
        });
    }

    /**
     * Every primitive of {@code org.depengine.api.device.primitive}: {@code Matmul} and {@code axpy} on
     * cuBLAS (the stream's handle) where it can be loaded, fills and copies on the driver's memset and
     * memcpy, the rest (and sgemm and axpy without cuBLAS) on this module's kernels, loaded into the
     * primary context on first use, once per device: the shipped PTX, which needs only the driver, or,
     * for a driver too old for it, the source compiled by NVRTC. Where neither loads, those calls throw
     * {@link org.depengine.api.EngineException} saying why.
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
        return completionThread();
    }

    /**
     * No: the callback thread runs only the callers' callbacks (a host function hands them over and
     * makes no CUDA call), so a callback still running after the wait holds no freeing back.
     */
    @Override
    protected boolean completionsTouchNative() {
        return false;
    }

    /**
     * Destroys the idle pooled events, then releases the primary context, unless page-locked host buffers
     * of {@link #allocateHost} are still reachable: releasing it would free them under their users' feet,
     * so the last of them to be freed releases it.
     */
    @Override
    protected void releaseNative() {
        try {
            bind();
            events.clear();
        } finally {
            nativeReleased = true;
            if (pinnedBytes.get() > 0) {
                LOG.debug("{}: primary context kept until {} bytes of page-locked host memory are freed", context(),
                        pinnedBytes.get());
            }
            releaseContextIfUnused();
        }
    }

    /**
     * Releases the primary context once the close has freed the streams and buffers and no page-locked
     * host memory is left (whichever comes last: the close, or the cleaner freeing the last pinned buffer).
     */
    private void releaseContextIfUnused() {
        if (!nativeReleased || pinnedBytes.get() != 0 || !contextReleased.compareAndSet(false, true)) {
            return;
        }
        try {
            driver.releasePrimaryContext(ordinal);
        } catch (RuntimeException e) {
            LOG.warn("{}: releasing the primary context failed", context(), e);
        }
    }

    /** Frees a pinned host allocation; runs on the cleaner's thread, even after {@link #close()}. */
    private void freeHost(Pointer host, long bytes) {
        try {
            driver.setCurrent(primary);
            driver.memFreeHost(host);
        } catch (RuntimeException e) {
            LOG.warn("{}: cuMemFreeHost failed", context(), e);
        } finally {
            pinnedBytes.addAndGet(-bytes);
            releaseContextIfUnused();
        }
    }

    /** The cleaner's action: it holds the device, never the buffer (or the buffer would stay reachable). */
    private record FreeHost(CudaDevice device, Pointer host, long bytes) implements Runnable {
        @Override
        public void run() {
            device.freeHost(host, bytes);
        }
    }
}
