package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import jcuda.CudaException;
import jcuda.jcublas.cublasOperation;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Matmul;

/**
 * {@link Matmul} with {@code cublasSgemm} on the stream's own cuBLAS handle.
 *
 * <p>cuBLAS is column-major, and a row-major {@code r × c} matrix is, read column-major, its
 * {@code c × r} transpose. So the row-major {@code C = op(A)·op(B)} is computed as the column-major
 * {@code Cᵀ = op(B)ᵀ·op(A)ᵀ}: B goes first, A second, the dimensions are {@code (n, m, k)}, and each
 * operand's "transposed" flag is kept as it is (B read column-major is already {@code Bᵀ}). The leading
 * dimensions are the row lengths as stored: {@code n} or {@code k} for B, {@code k} or {@code m} for A,
 * and {@code n} for C. {@code k = 0} or {@code alpha = 0} only scales C (cuBLAS would require leading
 * dimensions of at least 1, and A and B need not be read).
 */
final class CudaMatmul extends CudaPrimitive implements Matmul {
    CudaMatmul(CudaDevice device) {
        super(device);
    }

    @Override
    public void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        CudaStream s = cuda(stream);
        nonNegative("m", m);
        nonNegative("n", n);
        nonNegative("k", k);
        CudaBuffer ba = floats(a, "a", (long) m * k);
        CudaBuffer bb = floats(b, "b", (long) k * n);
        CudaBuffer bc = floats(c, "c", (long) m * n);
        distinct(c, "c", a, "a");
        distinct(c, "c", b, "b");
        long size = (long) m * n;
        if (size == 0) {
            return;
        }
        if (k == 0 || alpha == 0f) {
            if (beta == 0f) {
                CudaFill.fill(s, bc, 0, size, 0f);
            } else if (beta != 1f) {
                kernels().launchElementwise(s, "scale_f32", size, size, beta, bc.ptr(), bc.ptr());
            }
            return;
        }
        int opB = transB ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N;
        int opA = transA ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N;
        int ldb = transB ? k : n;
        int lda = transA ? m : k;
        var handle = s.cublas();
        device.bind();
        try {
            device.driver().cublasSgemm(handle, opB, opA, n, m, k, alpha, bb.ptr(), ldb, ba.ptr(), lda, beta, bc.ptr(),
                    n);
        } catch (CudaException e) {
            throw failure(s, "run cublasSgemm", e);
        }
    }
}
