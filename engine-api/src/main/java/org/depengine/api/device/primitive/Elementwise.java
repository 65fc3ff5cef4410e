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
    /** Enqueues {@code out[i] = x[i] + y[i]} for {@code i < n}. */
    void add(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out);

    /** Enqueues {@code out[i] = x[i] · y[i]} for {@code i < n}. */
    void mul(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out);

    /** Enqueues {@code y[i] += alpha · x[i]} for {@code i < n} (BLAS axpy). */
    void axpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y);

    /** Enqueues {@code out[i] = alpha · x[i]} for {@code i < n}. */
    void scale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out);

    /**
     * Enqueues {@code x[i][j] += b[j]} for a row-major {@code rows × cols} matrix {@code x} and a vector
     * {@code b} of {@code cols} floats: a bias added to every row. {@code b} must not be {@code x}.
     */
    void addRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b);
}
