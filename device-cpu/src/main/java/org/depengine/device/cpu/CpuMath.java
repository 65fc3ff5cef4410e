package org.depengine.device.cpu;

import static org.depengine.device.cpu.CpuBuffer.floats;

import java.util.Arrays;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Fill;
import org.depengine.api.device.primitive.Matmul;

/**
 * {@link Fill}, {@link Elementwise}, {@link Activation} as simple loops over arrays (which the JIT
 * vectorises), and {@link Matmul} by {@link Sgemm}, on the calling thread. The interfaces have checked
 * the arguments.
 */
final class CpuMath implements Fill, Elementwise, Activation, Matmul {
    private final CpuDevice device;

    CpuMath(CpuDevice device) {
        this.device = device;
    }

    @Override
    public CpuDevice device() {
        return device;
    }

    @Override
    public void enqueueFill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        Arrays.fill(floats(dst), (int) offset, (int) (offset + count), value);
    }

    @Override
    public void enqueueBinary(Stream stream, Op op, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        float[] xs = floats(x);
        float[] ys = floats(y);
        float[] os = floats(out);
        for (int i = 0; i < (int) n; i++) {
            os[i] = op == Op.ADD ? xs[i] + ys[i] : xs[i] * ys[i];
        }
    }

    @Override
    public void enqueueAxpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        float[] xs = floats(x);
        float[] ys = floats(y);
        for (int i = 0; i < (int) n; i++) {
            ys[i] += alpha * xs[i];
        }
    }

    @Override
    public void enqueueScale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        float[] xs = floats(x);
        float[] os = floats(out);
        for (int i = 0; i < (int) n; i++) {
            os[i] = alpha * xs[i];
        }
    }

    @Override
    public void enqueueAddRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        float[] xs = floats(x);
        float[] bs = floats(b);
        for (int i = 0; i < rows; i++) {
            int row = i * cols;
            for (int j = 0; j < cols; j++) {
                xs[row + j] += bs[j];
            }
        }
    }

    @Override
    public void enqueueRelu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        float[] xs = floats(x);
        float[] ys = floats(y);
        for (int i = 0; i < (int) n; i++) {
            float v = xs[i];
            // "v > 0 ? v : 0", as on the GPUs: NaN and -0 become 0.
            ys[i] = v > 0f ? v : 0f;
        }
    }

    @Override
    public void enqueueReluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        float[] ys = floats(y);
        float[] dys = floats(dy);
        float[] dxs = floats(dx);
        for (int i = 0; i < (int) n; i++) {
            dxs[i] = ys[i] > 0f ? dys[i] : 0f;
        }
    }

    @Override
    public void enqueueSgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        Sgemm.sgemm(transA, transB, m, n, k, alpha, floats(a), floats(b), beta, floats(c));
    }
}
