package org.depengine.device.cuda;

import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.driver.CUdeviceptr;
import org.depengine.api.device.DeviceBuffer;

/**
 * Device memory from {@code cuMemAlloc}. {@link #ptr()} gives the pointer for kernels and cuBLAS;
 * {@link CudaStream#write} and {@link CudaStream#read} copy to and from the host. {@link #close()} is
 * {@code cuMemFree}, which waits for nothing: close only once the work using the buffer is done.
 */
public final class CudaBuffer implements DeviceBuffer {
    private final CudaDevice device;
    private final CUdeviceptr ptr;
    private final long size;
    private final AtomicBoolean closed = new AtomicBoolean();

    CudaBuffer(CudaDevice device, CUdeviceptr ptr, long size) {
        this.device = device;
        this.ptr = ptr;
        this.size = size;
    }

    @Override
    public CudaDevice device() {
        return device;
    }

    @Override
    public long size() {
        return size;
    }

    /**
     * The device pointer.
     *
     * @throws IllegalStateException if the buffer is closed
     */
    public CUdeviceptr ptr() {
        if (closed.get()) {
            throw new IllegalStateException("buffer of " + size + " bytes on " + device.context() + " is closed");
        }
        return ptr;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            device.bind();
            device.driver().memFree(ptr);
        }
    }

    @Override
    public String toString() {
        return "CudaBuffer[" + device.context() + ", " + size + " bytes" + (closed.get() ? ", closed" : "") + "]";
    }
}
