package org.depengine.device.opencl;

import static org.jocl.CL.clReleaseMemObject;

import java.util.concurrent.atomic.AtomicBoolean;
import org.depengine.api.device.DeviceBuffer;
import org.jocl.cl_mem;

/**
 * A {@code cl_mem} buffer of an {@link OpenClDevice}. {@link #mem()} gives the handle for kernel
 * arguments and JOCL calls; {@link OpenClStream#write} and {@link OpenClStream#read} copy to and from
 * the host. {@link #close()} releases it: OpenCL keeps the memory until work already enqueued on it
 * has finished, so closing right after enqueueing is safe.
 */
public final class OpenClBuffer implements DeviceBuffer {
    private final OpenClDevice device;
    private final cl_mem mem;
    private final long size;
    private final AtomicBoolean closed = new AtomicBoolean();

    OpenClBuffer(OpenClDevice device, cl_mem mem, long size) {
        this.device = device;
        this.mem = mem;
        this.size = size;
    }

    @Override
    public OpenClDevice device() {
        return device;
    }

    @Override
    public long size() {
        return size;
    }

    /**
     * The OpenCL memory object.
     *
     * @throws IllegalStateException if the buffer is closed
     */
    public cl_mem mem() {
        if (closed.get()) {
            throw new IllegalStateException("buffer of " + size + " bytes on " + device.context() + " is closed");
        }
        return mem;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            clReleaseMemObject(mem);
        }
    }

    @Override
    public String toString() {
        return "OpenClBuffer[" + device.context() + ", " + size + " bytes" + (closed.get() ? ", closed" : "") + "]";
    }
}
