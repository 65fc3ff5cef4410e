package org.depengine.device.cpu;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;
import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Elementwise;

/** {@link Elementwise} as simple loops over arrays, which the JIT vectorises. */
final class CpuElementwise extends CpuPrimitive implements Elementwise {
    CpuElementwise(CpuDevice device) {
        super(device);
    }

    @Override
    public void add(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        lane(stream);
        nonNegative("n", n);
        float[] xs = floats(x, "x", n);
        float[] ys = floats(y, "y", n);
        float[] os = floats(out, "out", n);
        for (int i = 0; i < (int) n; i++) {
            os[i] = xs[i] + ys[i];
        }
    }

    @Override
    public void mul(Stream stream, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        lane(stream);
        nonNegative("n", n);
        float[] xs = floats(x, "x", n);
        float[] ys = floats(y, "y", n);
        float[] os = floats(out, "out", n);
        for (int i = 0; i < (int) n; i++) {
            os[i] = xs[i] * ys[i];
        }
    }

    @Override
    public void axpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        lane(stream);
        nonNegative("n", n);
        float[] xs = floats(x, "x", n);
        float[] ys = floats(y, "y", n);
        for (int i = 0; i < (int) n; i++) {
            ys[i] += alpha * xs[i];
        }
    }

    @Override
    public void scale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        lane(stream);
        nonNegative("n", n);
        float[] xs = floats(x, "x", n);
        float[] os = floats(out, "out", n);
        for (int i = 0; i < (int) n; i++) {
            os[i] = alpha * xs[i];
        }
    }

    @Override
    public void addRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        lane(stream);
        long size = matrix("x", rows, cols);
        float[] xs = floats(x, "x", size);
        float[] bs = floats(b, "b", cols);
        distinct(x, "x", b, "b");
        for (int i = 0; i < rows; i++) {
            int row = i * cols;
            for (int j = 0; j < cols; j++) {
                xs[row + j] += bs[j];
            }
        }
    }
}
