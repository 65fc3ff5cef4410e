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
    /**
     * Enqueues {@code out[i] = Σ_j x[i][j]} for {@code i < rows}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param x the row-major {@code rows × cols} matrix
     * @param out receives the sums
     */
    default void rowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        if (checked(stream, rows, cols, x, out, rows)) {
            enqueueRowSums(stream, rows, cols, x, out);
        }
    }

    /**
     * Enqueues {@code out[j] = Σ_i x[i][j]} for {@code j < cols} (e.g. a bias gradient).
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param x the row-major {@code rows × cols} matrix
     * @param out receives the sums
     */
    default void columnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        if (checked(stream, rows, cols, x, out, cols)) {
            enqueueColumnSums(stream, rows, cols, x, out);
        }
    }

    /** Checks a sum's arguments; true if it has an output to write. */
    private boolean checked(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out, int outputs) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.floats(device(), x, "x", PrimitiveChecks.matrix("x", rows, cols));
        PrimitiveChecks.floats(device(), out, "out", outputs);
        PrimitiveChecks.distinct(x, "x", out, "out");
        return outputs > 0;
    }

    /**
     * {@link #rowSums} after its checks, with {@code rows > 0} ({@code cols} may be 0).
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param x the row-major {@code rows × cols} matrix
     * @param out receives the sums
     */
    void enqueueRowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out);

    /**
     * {@link #columnSums} after its checks, with {@code cols > 0} ({@code rows} may be 0).
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param x the row-major {@code rows × cols} matrix
     * @param out receives the sums
     */
    void enqueueColumnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out);
}
