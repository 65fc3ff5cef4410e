package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Reduce;

/** {@link Reduce}: row sums by one block per row, column sums by one thread per column (NVRTC kernels). */
final class CudaReduce extends CudaPrimitive implements Reduce {
    CudaReduce(CudaDevice device) {
        super(device);
    }

    @Override
    public void rowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        CudaStream s = cuda(stream);
        long size = matrix("x", rows, cols);
        CudaBuffer bx = floats(x, "x", size);
        CudaBuffer bo = floats(out, "out", rows);
        distinct(x, "x", out, "out");
        kernels().launchPerRow(s, "row_sums_f32", rows, cols, cols, bx.ptr(), bo.ptr());
    }

    @Override
    public void columnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        CudaStream s = cuda(stream);
        long size = matrix("x", rows, cols);
        CudaBuffer bx = floats(x, "x", size);
        CudaBuffer bo = floats(out, "out", cols);
        distinct(x, "x", out, "out");
        kernels().launchElementwise(s, "column_sums_f32", cols, rows, cols, bx.ptr(), bo.ptr());
    }
}
