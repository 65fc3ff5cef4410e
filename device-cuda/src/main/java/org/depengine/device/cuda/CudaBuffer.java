package org.depengine.device.cuda;

import jcuda.CudaException;
import jcuda.driver.CUdeviceptr;
import org.depengine.api.device.DeviceBuffer;
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
public final class CudaBuffer implements DeviceBuffer {
    private final CudaDevice device;
    private final CUdeviceptr ptr;
    private final long size;
    /** Null while allocated; then why it is not any more. Guarded by this. */
    private String freedBecause;

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
     * @throws IllegalStateException if the buffer is closed, or was freed when its device closed (the
     *     message says which, and what to do)
     */
    public synchronized CUdeviceptr ptr() {
        if (freedBecause != null) {
            throw new IllegalStateException("buffer of " + size + " bytes on " + device.context() + " cannot be used: "
                    + freedBecause);
        }
        return ptr;
    }

    @Override
    public void close() {
        if (free("it is closed")) {
            device.bufferClosed(this);
        }
    }

    /** Frees the buffer because its device is closing (the device's context is current). */
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
            device.bind();
            device.driver().memFree(ptr);
        } catch (CudaException e) {
            LoggerFactory.getLogger(CudaBuffer.class).warn("{}: cuMemFree failed: {}", this, e.getMessage());
        }
        return true;
    }

    @Override
    public synchronized String toString() {
        return "CudaBuffer[" + device.context() + ", " + size + " bytes" + (freedBecause != null ? ", freed" : "") + "]";
    }
}
