package org.depengine.device.opencl;

import static org.jocl.CL.clReleaseMemObject;

import org.depengine.api.device.DeviceBuffer;
import org.jocl.CL;
import org.jocl.CLException;
import org.jocl.cl_mem;
import org.slf4j.LoggerFactory;

/**
 * A {@code cl_mem} buffer of an {@link OpenClDevice}. {@link #mem()} gives the handle for kernel
 * arguments and JOCL calls; {@link OpenClStream#write} and {@link OpenClStream#read} copy to and from
 * the host. {@link #close()} releases it: OpenCL keeps the memory until work already enqueued on it
 * has finished, so closing right after enqueueing is safe.
 *
 * <p>The buffer belongs to its device: when the device is closed, a buffer still allocated is freed
 * with it, and a later {@link #mem()} (so any copy or kernel on it) is an {@link IllegalStateException}
 * naming the device and what to do; a later {@link #close()} does nothing. Thread-safe.
 */
public final class OpenClBuffer implements DeviceBuffer {
    private final OpenClDevice device;
    private final cl_mem mem;
    private final long size;
    /** Null while allocated; then why it is not any more. Guarded by this. */
    private String freedBecause;

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
     * @throws IllegalStateException if the buffer is closed, or was freed when its device closed (the
     *     message says which, and what to do)
     */
    public synchronized cl_mem mem() {
        if (freedBecause != null) {
            throw new IllegalStateException("buffer of " + size + " bytes on " + device.context() + " cannot be used: "
                    + freedBecause);
        }
        return mem;
    }

    @Override
    public void close() {
        if (free("it is closed")) {
            device.bufferClosed(this);
        }
    }

    /** Frees the buffer because its device is closing. */
    void freeWithDevice() {
        free(device.closedMessage());
    }

    private boolean free(String because) {
        synchronized (this) {
            if (freedBecause != null) {
                return false;
            }
            freedBecause = because;
        }
        try {
            clReleaseMemObject(mem);
        } catch (CLException e) {
            LoggerFactory.getLogger(OpenClBuffer.class).warn("{}: clReleaseMemObject failed: {}", this,
                    CL.stringFor_errorCode(e.getStatus()));
        }
        return true;
    }

    @Override
    public synchronized String toString() {
        return "OpenClBuffer[" + device.context() + ", " + size + " bytes" + (freedBecause != null ? ", freed" : "") + "]";
    }
}
