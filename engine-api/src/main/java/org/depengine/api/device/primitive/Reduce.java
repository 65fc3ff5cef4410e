package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/**
 * Sums over the rows or the columns of a row-major {@code rows × cols} matrix. The output is
 * overwritten (an empty sum is 0) and must not be the input buffer. Every method throws
 * {@link IllegalArgumentException} if a size is negative, a buffer is too small, {@code out} is
 * {@code x}, or a buffer or the stream belongs to another device.
 */
public interface Reduce extends Primitive {
    /** Enqueues {@code out[i] = Σ_j x[i][j]} for {@code i < rows}. */
    void rowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out);

    /** Enqueues {@code out[j] = Σ_i x[i][j]} for {@code j < cols} (e.g. a bias gradient). */
    void columnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out);
}
