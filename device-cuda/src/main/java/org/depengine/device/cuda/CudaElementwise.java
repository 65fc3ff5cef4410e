package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;
import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import jcuda.CudaException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Elementwise;

/** {@link Elementwise}: {@code axpy} is {@code cublasSaxpy}, the rest are NVRTC kernels. */
final class CudaElementwise extends CudaPrimitive implements Elementwise {
    /** cuBLAS counts in {@code int}: longer vectors go in pieces of this many floats. */
    static final long AXPY_CHUNK = 1L << 30;

    CudaElementwise(CudaDevice device) {
        super(device);
    }

    @Override
    public void add(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        binary(stream, "add_f32", n, x, y, out);
    }

    @Override
    public void mul(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        binary(stream, "mul_f32", n, x, y, out);
    }

    private void binary(Stream stream, String kernel, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        CudaStream s = cuda(stream);
        nonNegative("n", n);
        CudaBuffer bx = floats(x, "x", n);
        CudaBuffer by = floats(y, "y", n);
        CudaBuffer bo = floats(out, "out", n);
        kernels().launchElementwise(s, kernel, n, n, bx.ptr(), by.ptr(), bo.ptr());
    }

    @Override
    public void axpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        CudaStream s = cuda(stream);
        nonNegative("n", n);
        CudaBuffer bx = floats(x, "x", n);
        CudaBuffer by = floats(y, "y", n);
        if (n == 0) {
            return;
        }
        var handle = s.cublas();
        device.bind();
        try {
            for (long done = 0; done < n; done += AXPY_CHUNK) {
                int len = (int) Math.min(AXPY_CHUNK, n - done);
                long off = done * Float.BYTES;
                device.driver().cublasSaxpy(handle, len, alpha, off == 0 ? bx.ptr() : bx.ptr().withByteOffset(off),
                        off == 0 ? by.ptr() : by.ptr().withByteOffset(off));
            }
        } catch (CudaException e) {
            throw failure(s, "run cublasSaxpy", e);
        }
    }

    @Override
    public void scale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        CudaStream s = cuda(stream);
        nonNegative("n", n);
        CudaBuffer bx = floats(x, "x", n);
        CudaBuffer bo = floats(out, "out", n);
        kernels().launchElementwise(s, "scale_f32", n, n, alpha, bx.ptr(), bo.ptr());
    }

    @Override
    public void addRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        CudaStream s = cuda(stream);
        long size = matrix("x", rows, cols);
        CudaBuffer bx = floats(x, "x", size);
        CudaBuffer bb = floats(b, "b", cols);
        distinct(x, "x", b, "b");
        kernels().launchElementwise(s, "add_row_vector_f32", size, size, cols, bx.ptr(), bb.ptr());
    }
}
