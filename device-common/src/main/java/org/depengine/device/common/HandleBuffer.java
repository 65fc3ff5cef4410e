package org.depengine.device.common;

import java.util.Objects;
import org.depengine.api.device.DeviceBuffer;

/**
 * Device memory over one native handle ({@code cl_mem}, {@code CUdeviceptr}) of a {@link NativeDevice}:
 * what the asynchronous devices' buffers share. A subclass frees the handle natively ({@link #release});
 * this class keeps the rule that a buffer is freed exactly once, by {@link #close()} or with its device,
 * that the device forgets a buffer closed by its user, and that a freed buffer refuses its handle with
 * an {@link IllegalStateException} naming the device and why. Thread-safe.
 *
 * @param <D> the device class
 * @param <H> the native handle
 */
public abstract class HandleBuffer<D extends NativeDevice<?, ?>, H> implements DeviceBuffer {
    private final D device;
    private final H handle;
    private final long size;
    /** Null while allocated; then why it is not any more. Guarded by this. */
    private String freedBecause;

    /** A buffer of {@code size} bytes of {@code device} over {@code handle}. */
    protected HandleBuffer(D device, H handle, long size) {
        this.device = Objects.requireNonNull(device, "device");
        this.handle = handle;
        this.size = size;
    }

    @Override
    public final D device() {
        return device;
    }

    @Override
    public final long size() {
        return size;
    }

    /**
     * The native handle.
     *
     * @throws IllegalStateException if the buffer is closed, or was freed when its device closed (the
     *     message says which, and what to do)
     */
    protected final synchronized H handle() {
        if (freedBecause != null) {
            throw new IllegalStateException("buffer of " + size + " bytes on " + device().context() + " cannot be used: "
                    + freedBecause);
        }
        return handle;
    }

    /** Frees the buffer (once; later calls do nothing) and tells the device, which then forgets it. */
    @Override
    public final void close() {
        if (freeBecause("it is closed")) {
            device.bufferClosed(this);
        }
    }

    /** Frees the buffer because its device is closing ({@link NativeDevice#close()}): a later use says so. */
    final void freeWithDevice() {
        freeBecause(device.closedMessage());
    }

    /**
     * Frees the buffer unless it is freed already; a later {@link #handle()} throws, saying {@code because}.
     *
     * @return whether this call freed it
     */
    private boolean freeBecause(String because) {
        synchronized (this) {
            if (freedBecause != null) {
                return false;
            }
            freedBecause = because;
        }
        release(handle); // outside the lock: a native call
        return true;
    }

    /**
     * Native: frees the handle, once, on the thread that closes the buffer or its device, holding no lock
     * of the buffer or the device; logs a failure rather than throwing (the buffer is gone either way).
     */
    protected abstract void release(H handle);

    @Override
    public final synchronized String toString() {
        return getClass().getSimpleName() + "[" + device().context() + ", " + size + " bytes"
                + (freedBecause != null ? ", freed" : "") + "]";
    }
}
