package org.depengine.api.device.primitive;

import java.nio.ByteBuffer;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/**
 * Copies between host memory and device memory, and within one device. Sizes and offsets are in
 * bytes. Host buffers must be direct and stay untouched until the copy is done; their position and
 * limit are not moved (see the {@linkplain org.depengine.api.device.primitive package} contract).
 * Empty copies enqueue nothing.
 */
public interface Memcpy extends Primitive {
    /**
     * Enqueues a copy of {@code src}'s remaining bytes (position to limit) into {@code dst} at
     * {@code dstOffsetBytes}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param src the source
     * @param dst the destination
     * @param dstOffsetBytes where in {@code dst} to start, in bytes
     * @throws IllegalArgumentException if {@code src} is not direct, the range does not fit in {@code dst},
     *     or {@code dst} or {@code stream} belongs to another device
     */
    default void hostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.host(src, "src");
        PrimitiveChecks.buffer(device(), dst, "dst");
        PrimitiveChecks.bytes(dst, "dst", dstOffsetBytes, src.remaining());
        if (src.hasRemaining()) {
            enqueueHostToDevice(stream, src, dst, dstOffsetBytes);
        }
    }

    /**
     * Enqueues a copy of {@code dst.remaining()} bytes of {@code src}, from {@code srcOffsetBytes}, into
     * {@code dst} (from its position). Read {@code dst} only once the copy is done.
     *
     * @param stream the stream to enqueue on, of this device
     * @param src the source
     * @param srcOffsetBytes where in {@code src} to start, in bytes
     * @param dst the destination
     * @throws IllegalArgumentException if {@code dst} is not direct, the range does not fit in {@code src},
     *     or {@code src} or {@code stream} belongs to another device
     */
    default void deviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.host(dst, "dst");
        PrimitiveChecks.buffer(device(), src, "src");
        PrimitiveChecks.bytes(src, "src", srcOffsetBytes, dst.remaining());
        if (dst.hasRemaining()) {
            enqueueDeviceToHost(stream, src, srcOffsetBytes, dst);
        }
    }

    /**
     * Enqueues a copy of {@code bytes} bytes from {@code src} at {@code srcOffsetBytes} to {@code dst} at
     * {@code dstOffsetBytes}, both buffers of the stream's device. The two ranges must not overlap
     * (they may be disjoint parts of one buffer). To move data between devices, copy through the host.
     *
     * @param stream the stream to enqueue on, of this device
     * @param src the source
     * @param srcOffsetBytes where in {@code src} to start, in bytes
     * @param dst the destination
     * @param dstOffsetBytes where in {@code dst} to start, in bytes
     * @param bytes how many bytes to copy
     * @throws IllegalArgumentException if a range does not fit, the ranges overlap, or a buffer belongs
     *     to another device
     */
    default void deviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.buffer(device(), src, "src");
        PrimitiveChecks.buffer(device(), dst, "dst");
        PrimitiveChecks.bytes(src, "src", srcOffsetBytes, bytes);
        PrimitiveChecks.bytes(dst, "dst", dstOffsetBytes, bytes);
        PrimitiveChecks.disjoint(src, srcOffsetBytes, dst, dstOffsetBytes, bytes);
        if (bytes > 0) {
            enqueueDeviceToDevice(stream, src, srcOffsetBytes, dst, dstOffsetBytes, bytes);
        }
    }

    /**
     * {@link #hostToDevice} after its checks, with bytes to copy.
     *
     * @param stream the stream to enqueue on, of this device
     * @param src the source
     * @param dst the destination
     * @param dstOffsetBytes where in {@code dst} to start, in bytes
     */
    void enqueueHostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes);

    /**
     * {@link #deviceToHost} after its checks, with bytes to copy.
     *
     * @param stream the stream to enqueue on, of this device
     * @param src the source
     * @param srcOffsetBytes where in {@code src} to start, in bytes
     * @param dst the destination
     */
    void enqueueDeviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst);

    /**
     * {@link #deviceToDevice} after its checks, with {@code bytes > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param src the source
     * @param srcOffsetBytes where in {@code src} to start, in bytes
     * @param dst the destination
     * @param dstOffsetBytes where in {@code dst} to start, in bytes
     * @param bytes how many bytes to copy
     */
    void enqueueDeviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes);
}
