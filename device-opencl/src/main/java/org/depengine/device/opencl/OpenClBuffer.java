package org.depengine.device.opencl;

import static org.jocl.CL.clReleaseMemObject;

import org.depengine.device.common.HandleBuffer;
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
public final class OpenClBuffer extends HandleBuffer<OpenClDevice, cl_mem> {
    OpenClBuffer(OpenClDevice device, cl_mem mem, long size) {
        super(device, mem, size);
    }

    /**
     * The OpenCL memory object.
     *
     * @throws IllegalStateException if the buffer is closed, or was freed when its device closed (the
     *     message says which, and what to do)
     */
    public cl_mem mem() {
        return handle();
    }

    @Override
    protected void release(cl_mem mem) {
        try {
            clReleaseMemObject(mem);
        } catch (CLException e) {
            LoggerFactory.getLogger(OpenClBuffer.class).warn("{}: clReleaseMemObject failed: {}", this,
                    CL.stringFor_errorCode(e.getStatus()));
        }
    }
}
