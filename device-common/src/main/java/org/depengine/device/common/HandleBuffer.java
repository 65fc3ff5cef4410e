package org.depengine.device.common;

import org.depengine.api.device.DeviceBuffer;

/**
 * Device memory over one native handle ({@code cl_mem}, {@code CUdeviceptr}): what the asynchronous
 * devices' buffers share. A subclass names its device and frees the handle natively; this class keeps
 * the rule that a buffer is freed exactly once, by {@link #close()} or with its device
 * ({@link #freeBecause}), and that a freed buffer refuses its handle with an
 * {@link IllegalStateException} naming the device and why. Thread-safe.
 *
 * @param <H> the native handle
 */
public abstract class HandleBuffer<H> implements DeviceBuffer {
    private final H handle;
    private final long size;
    /** Null while allocated; then why it is not any more. Guarded by this. */
    private String freedBecause;

    /** A buffer of {@code size} bytes over {@code handle}. */
    protected HandleBuffer(H handle, long size) {
        this.handle = handle;
        this.size = size;
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

    /** Frees the buffer (once; later calls do nothing) and tells the device. */
    @Override
    public final void close() {
        if (freeBecause("it is closed")) {
            closed();
        }
    }

    /**
     * Frees the buffer unless it is freed already; a later {@link #handle()} throws, saying {@code because}.
     *
     * @return whether this call freed it
     */
    protected final boolean freeBecause(String because) {
        synchronized (this) {
            if (freedBecause != null) {
                return false;
            }
            freedBecause = because;
        }
        release(handle); // outside the lock: a native call
        return true;
    }

    /** Frees the handle natively, once; logs a failure rather than throwing (the buffer is gone either way). */
    protected abstract void release(H handle);

    /** The buffer was closed by its user (not with its device): the device forgets it. */
    protected abstract void closed();

    @Override
    public final synchronized String toString() {
        return getClass().getSimpleName() + "[" + device().context() + ", " + size + " bytes"
                + (freedBecause != null ? ", freed" : "") + "]";
    }
}
