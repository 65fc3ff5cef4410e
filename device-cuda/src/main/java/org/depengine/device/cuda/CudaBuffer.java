package org.depengine.device.cuda;

import jcuda.CudaException;
import jcuda.driver.CUdeviceptr;
import org.depengine.device.common.HandleBuffer;
import org.slf4j.LoggerFactory;

/**
 * Device memory from {@code cuMemAlloc}. {@link #ptr()} gives the pointer for kernels and cuBLAS;
 * {@link CudaStream#write} and {@link CudaStream#read} copy to and from the host. {@link #close()} is
 * {@code cuMemFree}, which waits for nothing: close only once the work using the buffer is done.
 *
 * <p>The buffer belongs to its device: when the device is closed, a buffer still allocated is freed
 * with it, and a later {@link #ptr()} is an {@link IllegalStateException} naming the device and what to
 * do; a later {@link #close()} does nothing. Thread-safe.
 */
public final class CudaBuffer extends HandleBuffer<CudaDevice, CUdeviceptr> {
    CudaBuffer(CudaDevice device, CUdeviceptr ptr, long size) {
        super(device, ptr, size);
    }

    /**
     * The device pointer.
     *
     * @throws IllegalStateException if the buffer is closed, or was freed when its device closed (the
     *     message says which, and what to do)
     */
    public CUdeviceptr ptr() {
        return handle();
    }

    @Override
    protected void release(CUdeviceptr ptr) {
        try {
            device().bind();
            device().driver().memFree(ptr);
        } catch (CudaException e) {
            LoggerFactory.getLogger(CudaBuffer.class).warn("{}: cuMemFree failed: {}", this, e.getMessage());
        }
    }
}
