package org.depengine.benchmarks.opencl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.benchmarks.workload.OpBody;
import org.depengine.benchmarks.workload.OpList;
import org.depengine.benchmarks.workload.Workload;
import org.depengine.benchmarks.workload.Workloads;
import org.depengine.device.opencl.OpenClBuffer;
import org.depengine.device.opencl.OpenClDevice;
import org.depengine.device.opencl.OpenClKernel;
import org.depengine.device.opencl.OpenClStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenCL form of the copy/compute pipeline of {@link Workloads#copyCompute}: per batch, a copy of
 * the batch's host input into the slot's device input buffer ({@link OpenClStream#write}), a kernel
 * that runs a calibrated integer recurrence over it into the slot's device output buffer, and a copy
 * of that back into the batch's host output ({@link OpenClStream#read}). Every batch has its own
 * host input (different data), so a kernel that ran before its copy-in, or a copy-out before its
 * kernel, leaves a wrong output, which {@link #checkOutputs()} finds.
 *
 * <p>The kernel's iteration count is calibrated when the pipeline is opened so that one kernel takes
 * about as long as the two copies of a batch (the two lanes are balanced). Not thread-safe to open
 * or close; the body is safe for the engines' concurrent use (each op touches its own batch).
 */
public final class OpenClPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClPipeline.class);
    /** Bytes per buffer. */
    public static final int BYTES = 256 * 1024;
    private static final int INTS = BYTES / Integer.BYTES;
    private static final int MAX_ITERATIONS = 1 << 16;
    private static final String SOURCE = "__kernel void recurrence(__global const uint* in, __global uint* out, "
            + "const int iterations) {\n"
            + "  size_t i = get_global_id(0);\n"
            + "  uint x = in[i];\n"
            + "  for (int k = 0; k < iterations; k++) { x = x * 1664525u + 1013904223u; }\n"
            + "  out[i] = x;\n"
            + "}\n";

    private final OpenClDevice device;
    private final OpenClBuffer[] deviceIn = new OpenClBuffer[Workloads.COPY_COMPUTE_SLOTS];
    private final OpenClBuffer[] deviceOut = new OpenClBuffer[Workloads.COPY_COMPUTE_SLOTS];
    private final ByteBuffer[] hostIn = new ByteBuffer[Workloads.COPY_COMPUTE_BATCHES];
    private final ByteBuffer[] hostOut = new ByteBuffer[Workloads.COPY_COMPUTE_BATCHES];
    private final OpenClKernel kernel;
    private final int iterations;

    private OpenClPipeline(OpenClDevice device) {
        this.device = device;
        for (int s = 0; s < deviceIn.length; s++) {
            deviceIn[s] = device.allocate(BYTES);
            deviceOut[s] = device.allocate(BYTES);
        }
        for (int b = 0; b < hostIn.length; b++) {
            hostIn[b] = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            hostOut[b] = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            IntBuffer ints = hostIn[b].asIntBuffer();
            for (int i = 0; i < INTS; i++) {
                ints.put(i, b * 0x9E3779B1 + i);
            }
        }
        kernel = device.kernel(SOURCE, "recurrence");
        iterations = calibrate();
        LOG.info("{}: kernel calibrated to {} iterations per element (about two {}-byte copies)", device.context(),
                iterations, BYTES);
    }

    /**
     * Opens the buffers and the kernel on the OpenCL device {@code ctx}.
     *
     * @throws IllegalArgumentException if {@code ctx} is not an OpenCL context, or the device does not exist
     * @throws IllegalStateException if OpenCL is unavailable here (no driver); the message says why
     */
    public static OpenClPipeline open(Context ctx) {
        Device d = Devices.device(ctx);
        if (!(d instanceof OpenClDevice)) {
            throw new IllegalArgumentException(ctx + " is not an OpenCL device (got " + d.getClass().getName()
                    + "); use an opencl:N context");
        }
        return new OpenClPipeline((OpenClDevice) d);
    }

    /** The device. */
    public OpenClDevice device() {
        return device;
    }

    /** The calibrated kernel iteration count. */
    public int iterations() {
        return iterations;
    }

    /** A new stream of the device (for the serial baseline), to be closed by its user. */
    public Stream newStream() {
        return device.createStream(StreamKind.COMPUTE);
    }

    /** A workload over {@code ops} (the pipeline's list or a subset of it) whose bodies enqueue OpenCL work. */
    public Workload workload(OpList ops) {
        return Workload.custom(ops, w -> body(w));
    }

    private OpBody body(Workload w) {
        OpList ops = w.ops();
        return (op, stream) -> {
            int tag = ops.tag(op);
            int batch = tag / Workloads.ROLES;
            int slot = batch % Workloads.COPY_COMPUTE_SLOTS;
            OpenClStream s = (OpenClStream) stream;
            switch (tag % Workloads.ROLES) {
                case Workloads.COPY_IN:
                    s.write(deviceIn[slot], 0, hostIn[batch]);
                    break;
                case Workloads.COMPUTE:
                    kernel.launch(s, new long[] {INTS}, deviceIn[slot], deviceOut[slot], iterations);
                    break;
                default:
                    s.read(deviceOut[slot], 0, hostOut[batch]);
                    break;
            }
            w.effects().apply(op);
        };
    }

    /**
     * Checks a sample of every batch's output against the recurrence computed here.
     *
     * @return null if right, else the first wrong element
     */
    public String checkOutputs() {
        for (int b = 0; b < hostOut.length; b++) {
            IntBuffer in = hostIn[b].asIntBuffer();
            IntBuffer out = hostOut[b].asIntBuffer();
            for (int i = 0; i < INTS + 4099; i += 4099) {
                int at = Math.min(i, INTS - 1); // a sample, always including the last element
                int x = in.get(at);
                for (int k = 0; k < iterations; k++) {
                    x = x * 1664525 + 1013904223;
                }
                if (out.get(at) != x) {
                    return "batch " + b + ", element " + at + ": got " + out.get(at) + ", expected " + x;
                }
            }
        }
        return null;
    }

    /**
     * Kernel iterations such that one kernel takes about as long as two copies of a buffer: doubles
     * the count until it does (a single probe would mostly measure the launch, not the iterations).
     */
    private int calibrate() {
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE)) {
            long copy = Long.MAX_VALUE;
            for (int k = 0; k < 5; k++) {
                long t0 = System.nanoTime();
                s.write(deviceIn[0], 0, hostIn[0]);
                s.synchronize();
                copy = Math.min(copy, System.nanoTime() - t0);
            }
            int n = 1;
            while (n < MAX_ITERATIONS && kernelNanos(s, n) < 2 * copy) {
                n *= 2;
            }
            return n;
        }
    }

    private long kernelNanos(OpenClStream s, int n) {
        long best = Long.MAX_VALUE;
        for (int k = 0; k < 3; k++) {
            long t0 = System.nanoTime();
            kernel.launch(s, new long[] {INTS}, deviceIn[0], deviceOut[0], n);
            s.synchronize();
            best = Math.min(best, System.nanoTime() - t0);
        }
        return best;
    }

    @Override
    public void close() {
        for (int s = 0; s < deviceIn.length; s++) {
            deviceIn[s].close();
            deviceOut[s].close();
        }
    }
}
