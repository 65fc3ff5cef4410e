package org.depengine.api.device;

/**
 * Memory on a device, made by {@link Device#allocate(long)}. {@link #close()} frees it; using a
 * closed buffer is an {@link IllegalStateException}. Not thread-safe: order its uses through the
 * engine (a variable per buffer).
 */
public interface DeviceBuffer extends AutoCloseable {
    /**
     * The device holding the memory.
     *
     * @return the device holding the memory
     */
    Device device();

    /**
     * The size in bytes.
     *
     * @return the size in bytes
     */
    long size();

    /** Frees the memory; idempotent. */
    @Override
    void close();
}
