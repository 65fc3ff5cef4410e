package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Reduce;

/** {@link Reduce}: row sums by one work-group per row, column sums by one work item per column. */
final class OpenClReduce extends OpenClPrimitive implements Reduce {
    OpenClReduce(OpenClDevice device) {
        super(device);
    }

    @Override
    public void rowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        OpenClStream q = queue(stream);
        long size = matrix("x", rows, cols);
        OpenClBuffer bx = floats(x, "x", size);
        OpenClBuffer bo = floats(out, "out", rows);
        distinct(x, "x", out, "out");
        if (rows == 0) {
            return;
        }
        OpenClKernel k = kernel("row_sums_f32");
        int group = rowGroup(k, cols);
        k.launch(q, new long[] {(long) rows * group}, new long[] {group}, cols, bx, bo,
                OpenClKernel.local((long) group * Float.BYTES));
    }

    @Override
    public void columnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        OpenClStream q = queue(stream);
        long size = matrix("x", rows, cols);
        OpenClBuffer bx = floats(x, "x", size);
        OpenClBuffer bo = floats(out, "out", cols);
        distinct(x, "x", out, "out");
        launch1d(q, "column_sums_f32", cols, rows, cols, bx, bo);
    }
}
