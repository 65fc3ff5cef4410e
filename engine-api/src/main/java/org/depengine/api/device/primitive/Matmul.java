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
     * @throws IllegalArgumentException if a dimension is negative, a buffer is too small for its matrix,
     *     {@code C} is {@code A} or {@code B}, or a buffer or {@code stream} belongs to another device
     */
    void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha, DeviceBuffer a,
            DeviceBuffer b, float beta, DeviceBuffer c);
}
