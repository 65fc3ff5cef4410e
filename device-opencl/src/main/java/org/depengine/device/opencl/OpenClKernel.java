package org.depengine.device.opencl;

import static org.jocl.CL.CL_KERNEL_WORK_GROUP_SIZE;
import static org.jocl.CL.clEnqueueNDRangeKernel;
import static org.jocl.CL.clGetKernelWorkGroupInfo;
import static org.jocl.CL.clSetKernelArg;

import java.util.Objects;
import org.depengine.api.EngineException;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;

/**
 * A kernel of a program built by {@link OpenClDevice#kernel(String, String)}, shared by everyone who
 * asks for the same source and name. {@link #launch} sets the arguments and enqueues the kernel as one
 * step under the kernel's lock: a {@code cl_kernel}'s arguments are shared state, and OpenCL captures
 * them when the kernel is enqueued, so launches from several threads do not mix their arguments.
 */
public final class OpenClKernel {
    private final OpenClDevice device;
    private final String name;
    private final cl_kernel kernel;
    private volatile long maxWorkGroupSize; // 0 until first asked

    /** A {@code __local} argument of the given size in bytes; see {@link #local(long)}. */
    public record Local(long bytes) {
        /** @throws IllegalArgumentException if {@code bytes} is not positive */
        public Local {
            if (bytes <= 0) {
                throw new IllegalArgumentException("local memory size must be > 0 bytes, got " + bytes);
            }
        }
    }

    OpenClKernel(OpenClDevice device, String name, cl_kernel kernel) {
        this.device = device;
        this.name = name;
        this.kernel = kernel;
    }

    /** A {@code __local} memory argument of {@code bytes} bytes. */
    public static Local local(long bytes) {
        return new Local(bytes);
    }

    /** The kernel's function name. */
    public String name() {
        return name;
    }

    /**
     * The largest work-group this kernel can be launched with on its device
     * ({@code CL_KERNEL_WORK_GROUP_SIZE}), asked once and cached.
     *
     * @throws EngineException if OpenCL refuses the query
     */
    public long maxWorkGroupSize() {
        long v = maxWorkGroupSize;
        if (v == 0) {
            device.checkOpen("query kernel '" + name + "'");
            long[] out = new long[1];
            try {
                clGetKernelWorkGroupInfo(kernel, device.clDevice(), CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t,
                        Pointer.to(out), null);
            } catch (CLException e) {
                throw new EngineException("kernel '" + name + "' on " + device.context()
                        + ": cannot query its work-group size: " + CL.stringFor_errorCode(e.getStatus()), e);
            }
            v = Math.max(1, out[0]);
            maxWorkGroupSize = v;
        }
        return v;
    }

    /** The device the kernel was built for. */
    public OpenClDevice device() {
        return device;
    }

    /**
     * Enqueues the kernel on {@code stream} over {@code globalWorkSize} work items (one to three
     * dimensions), letting OpenCL choose the work-group size.
     *
     * @param args the kernel arguments in order: {@link OpenClBuffer}, {@link cl_mem}, {@link Integer},
     *     {@link Long}, {@link Float}, {@link Double}, {@link Short}, {@link Byte} or {@link Local}
     * @throws IllegalArgumentException if an argument has another type or the stream belongs to another device
     * @throws IllegalStateException if the device is closed (the kernel was released with it)
     * @throws EngineException if OpenCL refuses an argument or the launch
     */
    public void launch(OpenClStream stream, long[] globalWorkSize, Object... args) {
        launch(stream, globalWorkSize, null, args);
    }

    /**
     * As {@link #launch(OpenClStream, long[], Object...)}, with a work-group size ({@code null} lets
     * OpenCL choose).
     */
    public void launch(OpenClStream stream, long[] globalWorkSize, long[] localWorkSize, Object... args) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(globalWorkSize, "globalWorkSize");
        device.checkOpen("launch kernel '" + name + "'");
        if (stream.device() != device) {
            throw new IllegalArgumentException("kernel '" + name + "' of " + device.context() + " launched on a stream of "
                    + stream.device().context());
        }
        if (globalWorkSize.length < 1 || globalWorkSize.length > 3) {
            throw new IllegalArgumentException("1 to 3 work dimensions, got " + globalWorkSize.length);
        }
        if (localWorkSize != null && localWorkSize.length != globalWorkSize.length) {
            throw new IllegalArgumentException("local work size has " + localWorkSize.length
                    + " dimensions, global has " + globalWorkSize.length);
        }
        synchronized (this) {
            for (int i = 0; i < args.length; i++) {
                try {
                    setArg(i, args[i]);
                } catch (CLException e) {
                    throw new EngineException("kernel '" + name + "' on " + device.context() + ": argument " + i + " ("
                            + args[i] + ") refused: " + CL.stringFor_errorCode(e.getStatus()), e);
                }
            }
            try {
                clEnqueueNDRangeKernel(stream.queue(), kernel, globalWorkSize.length, null, globalWorkSize,
                        localWorkSize, 0, null, null);
            } catch (CLException e) {
                throw new EngineException("kernel '" + name + "' could not be launched on " + stream + ": "
                        + CL.stringFor_errorCode(e.getStatus()), e);
            }
        }
    }

    private void setArg(int index, Object arg) {
        if (arg instanceof OpenClBuffer b) {
            clSetKernelArg(kernel, index, Sizeof.cl_mem, Pointer.to(b.mem()));
        } else if (arg instanceof cl_mem m) {
            clSetKernelArg(kernel, index, Sizeof.cl_mem, Pointer.to(m));
        } else if (arg instanceof Integer v) {
            clSetKernelArg(kernel, index, Sizeof.cl_int, Pointer.to(new int[] {v}));
        } else if (arg instanceof Long v) {
            clSetKernelArg(kernel, index, Sizeof.cl_long, Pointer.to(new long[] {v}));
        } else if (arg instanceof Float v) {
            clSetKernelArg(kernel, index, Sizeof.cl_float, Pointer.to(new float[] {v}));
        } else if (arg instanceof Double v) {
            clSetKernelArg(kernel, index, Sizeof.cl_double, Pointer.to(new double[] {v}));
        } else if (arg instanceof Short v) {
            clSetKernelArg(kernel, index, Sizeof.cl_short, Pointer.to(new short[] {v}));
        } else if (arg instanceof Byte v) {
            clSetKernelArg(kernel, index, Sizeof.cl_char, Pointer.to(new byte[] {v}));
        } else if (arg instanceof Local l) {
            clSetKernelArg(kernel, index, l.bytes(), null);
        } else {
            throw new IllegalArgumentException("kernel '" + name + "': argument " + index + " has unsupported type "
                    + (arg == null ? "null" : arg.getClass().getName()));
        }
    }

    /** Releases the {@code cl_kernel} (the device is closing); a failure is logged. */
    void release() {
        try {
            CL.clReleaseKernel(kernel);
        } catch (CLException e) {
            org.slf4j.LoggerFactory.getLogger(OpenClKernel.class).warn("{}: clReleaseKernel failed: {}", this,
                    CL.stringFor_errorCode(e.getStatus()));
        }
    }

    @Override
    public String toString() {
        return "OpenClKernel[" + name + " on " + device.context() + "]";
    }
}
