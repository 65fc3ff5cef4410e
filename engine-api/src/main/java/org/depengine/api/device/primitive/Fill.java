package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/** Sets a range of floats to one value. */
public interface Fill extends Primitive {
    /**
     * Enqueues {@code dst[offset .. offset + count) = value} (float indices). {@code count} may be 0.
     *
     * @param stream the stream to enqueue on, of this device
     * @param dst the buffer to fill
     * @param offset the first float to set
     * @param count how many floats to set
     * @param value the value to set
     * @throws IllegalArgumentException if {@code offset} or {@code count} is negative, the range does not
     *     fit in {@code dst}, or {@code dst} or {@code stream} belongs to another device
     */
    default void fill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.buffer(device(), dst, "dst");
        PrimitiveChecks.elements(dst, "dst", offset, count);
        if (count > 0) {
            enqueueFill(stream, dst, offset, count, value);
        }
    }

    /**
     * {@link #fill} after its checks, with {@code count > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param dst the buffer to fill
     * @param offset the first float to set
     * @param count how many floats to set
     * @param value the value to set
     */
    void enqueueFill(Stream stream, DeviceBuffer dst, long offset, long count, float value);
}
