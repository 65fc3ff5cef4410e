package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/**
 * Element-wise arithmetic on the first {@code n} floats of each buffer (or on a matrix, for
 * {@link #addRowVector}). An output may be the same buffer as an input. Every method throws
 * {@link IllegalArgumentException} if a size is negative, a buffer holds fewer floats than the call
 * uses, or a buffer or the stream belongs to another device.
 */
public interface Elementwise extends Primitive {
    /** The binary operations of {@link #enqueueBinary}. */
    enum Op {
        /** {@code x + y}. */
        ADD,
        /** {@code x · y}. */
        MUL
    }

    /**
     * Enqueues {@code out[i] = x[i] + y[i]} for {@code i < n}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param x the first input floats
     * @param y the second input floats
     * @param out the output floats
     */
    default void add(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        binary(stream, Op.ADD, n, x, y, out);
    }

    /**
     * Enqueues {@code out[i] = x[i] · y[i]} for {@code i < n}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param x the first input floats
     * @param y the second input floats
     * @param out the output floats
     */
    default void mul(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        binary(stream, Op.MUL, n, x, y, out);
    }

    private void binary(Stream stream, Op op, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.nonNegative("n", n);
        PrimitiveChecks.floats(device(), x, "x", n);
        PrimitiveChecks.floats(device(), y, "y", n);
        PrimitiveChecks.floats(device(), out, "out", n);
        if (n > 0) {
            enqueueBinary(stream, op, n, x, y, out);
        }
    }

    /**
     * Enqueues {@code y[i] += alpha · x[i]} for {@code i < n} (BLAS axpy).
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param alpha the factor applied to {@code x}
     * @param x the input floats
     * @param y the floats updated in place
     */
    default void axpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.nonNegative("n", n);
        PrimitiveChecks.floats(device(), x, "x", n);
        PrimitiveChecks.floats(device(), y, "y", n);
        if (n > 0) {
            enqueueAxpy(stream, n, alpha, x, y);
        }
    }

    /**
     * Enqueues {@code out[i] = alpha · x[i]} for {@code i < n}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param alpha the factor applied to {@code x}
     * @param x the input floats
     * @param out the output floats
     */
    default void scale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.nonNegative("n", n);
        PrimitiveChecks.floats(device(), x, "x", n);
        PrimitiveChecks.floats(device(), out, "out", n);
        if (n > 0) {
            enqueueScale(stream, n, alpha, x, out);
        }
    }

    /**
     * Enqueues {@code x[i][j] += b[j]} for a row-major {@code rows × cols} matrix {@code x} and a vector
     * {@code b} of {@code cols} floats: a bias added to every row. {@code b} must not be {@code x}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param x the row-major {@code rows × cols} matrix, updated in place
     * @param b the vector of {@code cols} floats
     */
    default void addRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        PrimitiveChecks.stream(device(), stream);
        long size = PrimitiveChecks.matrix("x", rows, cols);
        PrimitiveChecks.floats(device(), x, "x", size);
        PrimitiveChecks.floats(device(), b, "b", cols);
        PrimitiveChecks.distinct(x, "x", b, "b");
        if (size > 0) {
            enqueueAddRowVector(stream, rows, cols, x, b);
        }
    }

    /**
     * {@link #add} or {@link #mul} after its checks, with {@code n > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param op the operation
     * @param n the number of floats
     * @param x the first input floats
     * @param y the second input floats
     * @param out the output floats
     */
    void enqueueBinary(Stream stream, Op op, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out);

    /**
     * {@link #axpy} after its checks, with {@code n > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param alpha the factor applied to {@code x}
     * @param x the input floats
     * @param y the floats updated in place
     */
    void enqueueAxpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y);

    /**
     * {@link #scale} after its checks, with {@code n > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param n the number of floats
     * @param alpha the factor applied to {@code x}
     * @param x the input floats
     * @param out the output floats
     */
    void enqueueScale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out);

    /**
     * {@link #addRowVector} after its checks, with {@code rows · cols > 0}.
     *
     * @param stream the stream to enqueue on, of this device
     * @param rows the number of rows
     * @param cols the number of columns
     * @param x the row-major {@code rows × cols} matrix, updated in place
     * @param b the vector of {@code cols} floats
     */
    void enqueueAddRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b);
}
