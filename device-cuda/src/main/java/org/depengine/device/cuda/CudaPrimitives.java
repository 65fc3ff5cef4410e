package org.depengine.device.cuda;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;
import jcuda.CudaException;
import jcuda.jcublas.cublasHandle;
import jcuda.jcublas.cublasOperation;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Fill;
import org.depengine.api.device.primitive.Matmul;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.device.primitive.Reduce;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every primitive of {@code org.depengine.api.device.primitive} on one GPU: copies with
 * {@code cuMemcpy*Async} (from pageable host memory they may be synchronous; {@link CudaDevice#allocateHost}
 * gives page-locked memory, for which they are not), fill with {@code cuMemsetD32Async} of the value's
 * bits, {@code sgemm} and {@code axpy} on cuBLAS (the stream's own handle), the rest on the module's
 * kernels ({@link CudaKernels}). Where cuBLAS cannot be loaded (a machine with the driver but not the
 * CUDA 12 cuBLAS libraries), sgemm and axpy run on the module's kernels too, and a warning says so once
 * per device. The interfaces have checked the arguments. Thread-safe.
 *
 * <p>cuBLAS is column-major, and a row-major {@code r × c} matrix is, read column-major, its
 * {@code c × r} transpose. So the row-major {@code C = op(A)·op(B)} is computed as the column-major
 * {@code Cᵀ = op(B)ᵀ·op(A)ᵀ}: B goes first, A second, the dimensions are {@code (n, m, k)}, and each
 * operand's "transposed" flag is kept as it is (B read column-major is already {@code Bᵀ}). The leading
 * dimensions are the row lengths as stored: {@code n} or {@code k} for B, {@code k} or {@code m} for A,
 * and {@code n} for C. {@code k = 0} or {@code alpha = 0} only scales C (cuBLAS would require leading
 * dimensions of at least 1, and A and B need not be read). The fallback kernel is row-major itself.
 */
final class CudaPrimitives implements Memcpy, Fill, Matmul, Elementwise, Activation, SoftmaxCrossEntropy, Reduce {
    /** cuBLAS counts in {@code int}: longer vectors go in pieces of this many floats. */
    static final long AXPY_CHUNK = 1L << 30;

    private static final Logger LOG = LoggerFactory.getLogger(CudaPrimitives.class);

    private final CudaDevice device;
    /** Why cuBLAS cannot be loaded, once a stream has found out; null until then. */
    private final AtomicReference<String> cublasMissing = new AtomicReference<>();

    CudaPrimitives(CudaDevice device) {
        this.device = device;
    }

    @Override
    public CudaDevice device() {
        return device;
    }

    @Override
    public void enqueueHostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        CudaStream s = (CudaStream) stream;
        driverCall(s, "copy to the device", () -> device.driver().copyHtoDAsync(ptr(dst), dstOffsetBytes, src,
                s.cuStream()));
    }

    @Override
    public void enqueueDeviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        CudaStream s = (CudaStream) stream;
        driverCall(s, "copy from the device", () -> device.driver().copyDtoHAsync(dst, ptr(src), srcOffsetBytes,
                s.cuStream()));
    }

    @Override
    public void enqueueDeviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        CudaStream s = (CudaStream) stream;
        driverCall(s, "copy " + bytes + " bytes between buffers", () -> device.driver().copyDtoDAsync(ptr(dst),
                dstOffsetBytes, ptr(src), srcOffsetBytes, bytes, s.cuStream()));
    }

    @Override
    public void enqueueFill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        CudaStream s = (CudaStream) stream;
        driverCall(s, "fill " + count + " floats", () -> device.driver().memsetD32Async(ptr(dst), offset * Float.BYTES,
                Float.floatToRawIntBits(value), count, s.cuStream()));
    }

    @Override
    public void enqueueSgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        CudaStream s = (CudaStream) stream;
        long size = (long) m * n;
        if (k == 0 || alpha == 0f) {
            if (beta == 0f) {
                enqueueFill(s, c, 0, size, 0f);
            } else if (beta != 1f) {
                device.kernels().launchElementwise(s, "scale_f32", size, size, beta, ptr(c), ptr(c));
            }
            return;
        }
        cublasHandle handle = cublas(s);
        if (handle == null) {
            device.kernels().launchSgemm(s, transA, transB, m, n, k, alpha, ptr(a), ptr(b), beta, ptr(c));
            return;
        }
        int opB = transB ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N;
        int opA = transA ? cublasOperation.CUBLAS_OP_T : cublasOperation.CUBLAS_OP_N;
        driverCall(s, "run cublasSgemm", () -> device.driver().cublasSgemm(handle, opB, opA, n, m, k, alpha, ptr(b),
                transB ? k : n, ptr(a), transA ? m : k, beta, ptr(c), n));
    }

    @Override
    public void enqueueBinary(Stream stream, Op op, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        elementwise(stream, op == Op.ADD ? "add_f32" : "mul_f32", n, n, ptr(x), ptr(y), ptr(out));
    }

    @Override
    public void enqueueAxpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        CudaStream s = (CudaStream) stream;
        cublasHandle handle = cublas(s);
        if (handle == null) {
            elementwise(s, "axpy_f32", n, n, alpha, ptr(x), ptr(y));
            return;
        }
        driverCall(s, "run cublasSaxpy", () -> {
            for (long done = 0; done < n; done += AXPY_CHUNK) {
                int len = (int) Math.min(AXPY_CHUNK, n - done);
                long off = done * Float.BYTES;
                device.driver().cublasSaxpy(handle, len, alpha, off == 0 ? ptr(x) : ptr(x).withByteOffset(off),
                        off == 0 ? ptr(y) : ptr(y).withByteOffset(off));
            }
        });
    }

    @Override
    public void enqueueScale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        elementwise(stream, "scale_f32", n, n, alpha, ptr(x), ptr(out));
    }

    @Override
    public void enqueueAddRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        long size = (long) rows * cols;
        elementwise(stream, "add_row_vector_f32", size, size, cols, ptr(x), ptr(b));
    }

    @Override
    public void enqueueRelu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        elementwise(stream, "relu_f32", n, n, ptr(x), ptr(y));
    }

    @Override
    public void enqueueReluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        elementwise(stream, "relu_grad_f32", n, n, ptr(y), ptr(dy), ptr(dx));
    }

    @Override
    public void enqueueLossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale) {
        // Without a gradient the kernel never touches its d parameter; the logits stand in for it.
        device.kernels().launchPerRow((CudaStream) stream, "softmax_xent_f32", rows, cols, cols, ptr(logits),
                ptr(labels), ptr(loss), ptr(dlogits == null ? logits : dlogits), dlogits == null ? 0 : 1, gradScale);
    }

    @Override
    public void enqueueRowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        device.kernels().launchPerRow((CudaStream) stream, "row_sums_f32", rows, cols, cols, ptr(x), ptr(out));
    }

    @Override
    public void enqueueColumnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        elementwise(stream, "column_sums_f32", cols, rows, cols, ptr(x), ptr(out));
    }

    private void elementwise(Stream stream, String kernel, long n, Object... args) {
        device.kernels().launchElementwise((CudaStream) stream, kernel, n, args);
    }

    /** The stream's cuBLAS handle, or null where cuBLAS cannot be loaded (then the kernels stand in). */
    private cublasHandle cublas(CudaStream s) {
        if (cublasMissing.get() != null) {
            return null;
        }
        try {
            return s.cublas();
        } catch (CublasUnavailableException e) {
            if (cublasMissing.compareAndSet(null, e.getMessage())) {
                LOG.warn("{}: sgemm and axpy run on depengine's own CUDA kernels, slower than cuBLAS, because {}. "
                        + "Install the CUDA 12 cuBLAS libraries (libcublas.so.12, libcublasLt.so.12) for cuBLAS",
                        device.context(), e.getMessage());
            }
            return null;
        }
    }

    private static jcuda.driver.CUdeviceptr ptr(DeviceBuffer b) {
        return ((CudaBuffer) b).ptr();
    }

    /** Runs a driver call with the device's context current, turning a CUDA error into an EngineException. */
    private void driverCall(CudaStream s, String what, Runnable call) {
        device.bind();
        try {
            call.run();
        } catch (CudaException e) {
            throw new EngineException("CUDA error on " + s + ": could not " + what + ": " + e.getMessage(), e);
        }
    }
}
