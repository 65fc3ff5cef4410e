package org.depengine.device.opencl;

import static org.jocl.CL.CL_MEM_READ_WRITE;
import static org.jocl.CL.CL_PROGRAM_BUILD_LOG;
import static org.jocl.CL.clBuildProgram;
import static org.jocl.CL.clCreateBuffer;
import static org.jocl.CL.clCreateContext;
import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clCreateProgramWithSource;
import static org.jocl.CL.clGetProgramBuildInfo;
import static org.jocl.CL.clReleaseProgram;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Context;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Primitive;
import org.depengine.api.device.primitive.PrimitiveSet;
import org.depengine.device.common.BoundedPool;
import org.depengine.device.common.CompletionThread;
import org.depengine.device.common.InFlight;
import org.depengine.device.common.NativeDevice;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.cl_context;
import org.jocl.cl_context_properties;
import org.jocl.cl_device_id;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_platform_id;
import org.jocl.cl_program;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One OpenCL device with its own {@code cl_context}. Streams are in-order command queues
 * ({@link #createStream}); buffers are {@code cl_mem} objects ({@link #allocate}); kernels are built
 * from OpenCL C source once per device and cached ({@link #kernel}).
 *
 * <p>Diagnostics: {@link #liveEvents()} counts the {@code cl_event}s this device holds, so that a
 * leak shows; {@link #hooksCreated()} counts the completion-callback wrappers ever made (they are
 * pooled). Thread-safe.
 *
 * <p>Lifetime: opened by {@link OpenClDeviceProvider#device(int)}, which owns it and closes it
 * ({@link #close()}); see {@link org.depengine.api.device.Devices} for when. Closing, in
 * {@link NativeDevice}'s order, finishes and releases the streams still open, waits for the completion
 * callbacks in flight (they come on driver threads after the work is done, and touch its events), frees
 * the buffers still allocated, then the kernels, the programs and the context. A stream, buffer or
 * kernel of a closed device fails with an {@link IllegalStateException} naming the device, never
 * touching freed native memory; the device itself then makes no stream, buffer or kernel.
 */
public final class OpenClDevice extends NativeDevice<OpenClStream, OpenClBuffer> {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClDevice.class);

    /** Completion hooks kept for reuse; more than this in flight at once are made and dropped. */
    static final int HOOK_POOL_LIMIT = 256;

    private final cl_platform_id platform;
    private final cl_device_id device;
    private final cl_context clContext;

    /** Programs by source text: building is the costly step (a compiler run), so it is done once. */
    private final ConcurrentHashMap<String, cl_program> programs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<KernelKey, OpenClKernel> kernels = new ConcurrentHashMap<>();
    private final AtomicInteger programBuilds = new AtomicInteger();

    private final AtomicLong liveEvents = new AtomicLong();
    private final AtomicLong eventsCreated = new AtomicLong();
    private final BoundedPool<OpenClStream.Hook> hooks = new BoundedPool<>(HOOK_POOL_LIMIT, OpenClStream.Hook::new,
            h -> { });
    private final PrimitiveSet primitives = new PrimitiveSet(new OpenClPrimitives(this));

    private record KernelKey(String source, String name) {
    }

    OpenClDevice(Context ctx, OpenClDeviceProvider.DeviceInfo info) {
        super(ctx, info.platformName() + ": " + info.deviceName(), "completion");
        this.platform = info.platform();
        this.device = info.device();
        cl_context_properties props = new cl_context_properties();
        props.addProperty(CL.CL_CONTEXT_PLATFORM, platform);
        // No context error callback: errors are reported by the calls themselves (exceptions are on).
        this.clContext = clCreateContext(props, 1, new cl_device_id[] {device}, null, null, null);
    }

    /**
     * A new in-order command queue. Each call makes its own {@code cl_command_queue}, so work on two
     * streams may overlap.
     */
    @Override
    protected OpenClStream newStream(StreamKind kind, int number) {
        return new OpenClStream(this, kind, number);
    }

    /**
     * A read-write buffer in device memory ({@code clCreateBuffer}); a {@link CLException} if the device
     * cannot allocate it.
     */
    @Override
    protected OpenClBuffer newBuffer(long bytes) {
        return new OpenClBuffer(this, clCreateBuffer(clContext, CL_MEM_READ_WRITE, bytes, null, null), bytes);
    }

    /**
     * Every primitive of {@code org.depengine.api.device.primitive}, as OpenCL C kernels of one program
     * that is built on first use and cached like any other ({@link #kernel}).
     */
    @Override
    public <P extends Primitive> Optional<P> primitive(Class<P> type) {
        return primitives.find(type);
    }

    /**
     * The kernel {@code name} of the program built from {@code source}. The program is built once per
     * device and source text; the kernel object once per (source, name). Later calls with the same
     * arguments return the same {@link OpenClKernel}.
     *
     * @throws IllegalArgumentException if the source does not build (the message holds the build log)
     *     or has no kernel of that name
     * @throws IllegalStateException if the device is closed
     */
    public OpenClKernel kernel(String source, String name) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(name, "name");
        KernelKey key = new KernelKey(source, name);
        return whileOpen("build a kernel", () -> kernels.computeIfAbsent(key, this::buildKernel));
    }

    private OpenClKernel buildKernel(KernelKey k) {
        cl_program program = program(k.source());
        try {
            cl_kernel kernel = clCreateKernel(program, k.name(), null);
            return new OpenClKernel(this, k.name(), kernel);
        } catch (CLException e) {
            throw new IllegalArgumentException("no kernel '" + k.name() + "' in the program for " + context() + ": "
                    + CL.stringFor_errorCode(e.getStatus()), e);
        }
    }

    private cl_program program(String source) {
        return programs.computeIfAbsent(source, src -> {
            cl_program program = clCreateProgramWithSource(clContext, 1, new String[] {src}, null, null);
            try {
                clBuildProgram(program, 1, new cl_device_id[] {device}, null, null, null);
            } catch (CLException e) {
                String log = buildLog(program);
                clReleaseProgram(program);
                throw new IllegalArgumentException("OpenCL program does not build on " + context() + " ("
                        + CL.stringFor_errorCode(e.getStatus()) + "):\n" + log, e);
            }
            int n = programBuilds.incrementAndGet();
            LOG.debug("{}: built program #{} ({} chars of source)", context(), n, src.length());
            return program;
        });
    }

    private String buildLog(cl_program program) {
        try {
            long[] size = new long[1];
            clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, null, size);
            byte[] buf = new byte[(int) size[0]];
            clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, buf.length, Pointer.to(buf), null);
            int len = buf.length > 0 && buf[buf.length - 1] == 0 ? buf.length - 1 : buf.length;
            return new String(buf, 0, len, StandardCharsets.UTF_8).strip();
        } catch (CLException e) {
            return "(no build log: " + CL.stringFor_errorCode(e.getStatus()) + ")";
        }
    }

    /** How many programs this device has built (each distinct source once). */
    public int programBuilds() {
        return programBuilds.get();
    }

    /**
     * How many {@code cl_event}s this device's streams hold right now: markers recorded and not yet
     * released. An event is released as soon as it is seen complete (by {@code isDone}, {@code await},
     * its callback, a later {@code record} on the same stream, or {@code synchronize}), so this stays
     * at the number of events still in flight.
     */
    public long liveEvents() {
        return liveEvents.get();
    }

    /** How many {@code cl_event}s this device's streams have made in all. */
    public long eventsCreated() {
        return eventsCreated.get();
    }

    /**
     * How many completion-callback wrappers ({@code onComplete}, {@code whenDone}) were ever made. They
     * are pooled, so this stays near the largest number of callbacks in flight at once.
     */
    public int hooksCreated() {
        return (int) hooks.created();
    }

    /**
     * The OpenCL context, for interoperation with code that calls JOCL directly.
     *
     * @throws IllegalStateException if the device is closed
     */
    public cl_context clContext() {
        checkOpen("use its OpenCL context");
        return clContext;
    }

    /** The OpenCL device id. */
    public cl_device_id clDevice() {
        return device;
    }

    void eventCreated() {
        eventsCreated.incrementAndGet();
        liveEvents.incrementAndGet();
    }

    /** Releases a {@code cl_event} of one of this device's streams. */
    void releaseEvent(cl_event ev) {
        try {
            CL.clReleaseEvent(ev);
        } catch (CLException e) {
            // A failed release leaks at most one event; nothing the caller can do about it.
            LOG.warn("{}: clReleaseEvent failed: {}", context(), CL.stringFor_errorCode(e.getStatus()));
        } finally {
            liveEvents.decrementAndGet();
        }
    }

    BoundedPool<OpenClStream.Hook> hooks() {
        return hooks;
    }

    CompletionThread completions() {
        return completionThread();
    }

    InFlight callbacks() {
        return nativeCallbacks();
    }

    /** Releases the kernels, the programs and the OpenCL context, each failure logged. */
    @Override
    protected void releaseNative() {
        kernels.values().forEach(OpenClKernel::release);
        kernels.clear();
        for (cl_program p : programs.values()) {
            releaseQuietly(() -> clReleaseProgram(p), "clReleaseProgram");
        }
        programs.clear();
        releaseQuietly(() -> CL.clReleaseContext(clContext), "clReleaseContext");
    }

    private void releaseQuietly(Runnable release, String what) {
        try {
            release.run();
        } catch (CLException e) {
            LOG.warn("{}: {} failed while closing: {}", context(), what, CL.stringFor_errorCode(e.getStatus()));
        }
    }

}
