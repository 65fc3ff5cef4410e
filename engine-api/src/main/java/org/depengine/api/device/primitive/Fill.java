package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/** Sets a range of floats to one value. */
public interface Fill extends Primitive {
    /**
     * Enqueues {@code dst[offset .. offset + count) = value} (float indices). {@code count} may be 0.
     *
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

    /** {@link #fill} after its checks, with {@code count > 0}. */
    void enqueueFill(Stream stream, DeviceBuffer dst, long offset, long count, float value);
}
