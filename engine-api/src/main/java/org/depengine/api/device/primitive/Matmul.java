package org.depengine.api.device.primitive;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;

/** Single-precision general matrix multiply on row-major matrices. */
public interface Matmul extends Primitive {
    /**
     * Enqueues {@code C = alpha · op(A) · op(B) + beta · C}, where {@code op(X)} is {@code X} or its
     * transpose. All matrices are dense row-major and start at float 0 of their buffer:
     * <ul>
     *   <li>{@code op(A)} is {@code m × k}: {@code A} is stored {@code m × k}, or {@code k × m} when
     *       {@code transA};</li>
     *   <li>{@code op(B)} is {@code k × n}: {@code B} is stored {@code k × n}, or {@code n × k} when
     *       {@code transB};</li>
     *   <li>{@code C} is {@code m × n}.</li>
     * </ul>
     * As in BLAS, when {@code beta} is 0 the old contents of {@code C} are not read (NaN in it does not
     * spread), and when {@code k} is 0 the result is {@code beta · C}. {@code m} or {@code n} 0 does
     * nothing. {@code C} must not be the same buffer as {@code A} or {@code B}; {@code A} and {@code B}
     * may be the same buffer.
     *
     * @param stream the stream to enqueue on, of this device
     * @param transA whether {@code A} is transposed
     * @param transB whether {@code B} is transposed
     * @param m the rows of {@code C}
     * @param n the columns of {@code C}
     * @param k the inner dimension
     * @param alpha the factor of {@code A · B}
     * @param a the matrix {@code A}
     * @param b the matrix {@code B}
     * @param beta the factor of the old {@code C}
     * @param c the matrix {@code C}, updated in place
     * @throws IllegalArgumentException if a dimension is negative, a buffer is too small for its matrix,
     *     {@code C} is {@code A} or {@code B}, or a buffer or {@code stream} belongs to another device
     */
    default void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        PrimitiveChecks.stream(device(), stream);
        PrimitiveChecks.nonNegative("m", m);
        PrimitiveChecks.nonNegative("n", n);
        PrimitiveChecks.nonNegative("k", k);
        PrimitiveChecks.floats(device(), a, "a", (long) m * k);
        PrimitiveChecks.floats(device(), b, "b", (long) k * n);
        PrimitiveChecks.floats(device(), c, "c", (long) m * n);
        PrimitiveChecks.distinct(c, "c", a, "a");
        PrimitiveChecks.distinct(c, "c", b, "b");
        if ((long) m * n > 0) {
            enqueueSgemm(stream, transA, transB, m, n, k, alpha, a, b, beta, c);
        }
    }

    /**
     * {@link #sgemm} after its checks, with {@code m · n > 0} ({@code k} may be 0).
     *
     * @param stream the stream to enqueue on, of this device
     * @param transA whether {@code A} is transposed
     * @param transB whether {@code B} is transposed
     * @param m the rows of {@code C}
     * @param n the columns of {@code C}
     * @param k the inner dimension
     * @param alpha the factor of {@code A · B}
     * @param a the matrix {@code A}
     * @param b the matrix {@code B}
     * @param beta the factor of the old {@code C}
     * @param c the matrix {@code C}, updated in place
     */
    void enqueueSgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha, DeviceBuffer a,
            DeviceBuffer b, float beta, DeviceBuffer c);
}
