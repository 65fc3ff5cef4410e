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
    void fill(Stream stream, DeviceBuffer dst, long offset, long count, float value);
}
