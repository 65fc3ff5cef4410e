package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;
import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Elementwise;

/** {@link Elementwise}: one work item per element. */
final class OpenClElementwise extends OpenClPrimitive implements Elementwise {
    OpenClElementwise(OpenClDevice device) {
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
        OpenClStream q = queue(stream);
        nonNegative("n", n);
        OpenClBuffer bx = floats(x, "x", n);
        OpenClBuffer by = floats(y, "y", n);
        OpenClBuffer bo = floats(out, "out", n);
        launch1d(q, kernel, n, n, bx, by, bo);
    }

    @Override
    public void axpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        OpenClStream q = queue(stream);
        nonNegative("n", n);
        OpenClBuffer bx = floats(x, "x", n);
        OpenClBuffer by = floats(y, "y", n);
        launch1d(q, "axpy_f32", n, n, alpha, bx, by);
    }

    @Override
    public void scale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        OpenClStream q = queue(stream);
        nonNegative("n", n);
        OpenClBuffer bx = floats(x, "x", n);
        OpenClBuffer bo = floats(out, "out", n);
        launch1d(q, "scale_f32", n, n, alpha, bx, bo);
    }

    @Override
    public void addRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        OpenClStream q = queue(stream);
        long size = matrix("x", rows, cols);
        OpenClBuffer bx = floats(x, "x", size);
        OpenClBuffer bb = floats(b, "b", cols);
        distinct(x, "x", b, "b");
        launch1d(q, "add_row_vector_f32", size, size, cols, bx, bb);
    }
}
