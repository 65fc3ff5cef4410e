package org.depengine.api.device.primitive;

import java.nio.ByteBuffer;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/**
 * Copies between host memory and device memory, and within one device. Sizes and offsets are in
 * bytes. Host buffers must be direct and stay untouched until the copy is done; their position and
 * limit are not moved (see the {@linkplain org.depengine.api.device.primitive package} contract).
 */
public interface Memcpy extends Primitive {
    /**
     * Enqueues a copy of {@code src}'s remaining bytes (position to limit) into {@code dst} at
     * {@code dstOffsetBytes}.
     *
     * @throws IllegalArgumentException if {@code src} is not direct, the range does not fit in {@code dst},
     *     or {@code dst} or {@code stream} belongs to another device
     */
    void hostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes);

    /**
     * Enqueues a copy of {@code dst.remaining()} bytes of {@code src}, from {@code srcOffsetBytes}, into
     * {@code dst} (from its position). Read {@code dst} only once the copy is done.
     *
     * @throws IllegalArgumentException if {@code dst} is not direct, the range does not fit in {@code src},
     *     or {@code src} or {@code stream} belongs to another device
     */
    void deviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst);

    /**
     * Enqueues a copy of {@code bytes} bytes from {@code src} at {@code srcOffsetBytes} to {@code dst} at
     * {@code dstOffsetBytes}, both buffers of the stream's device. The two ranges must not overlap
     * (they may be disjoint parts of one buffer). To move data between devices, copy through the host.
     *
     * @throws IllegalArgumentException if a range does not fit, the ranges overlap, or a buffer belongs
     *     to another device
     */
    void deviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst, long dstOffsetBytes,
            long bytes);
}
