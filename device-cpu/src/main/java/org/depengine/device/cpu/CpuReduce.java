package org.depengine.device.cpu;

import static org.depengine.device.cpu.CpuBuffer.floats;

import java.util.Arrays;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Reduce;

/** {@link Reduce}: row sums with four partial sums (for instruction-level parallelism), column sums row by row. */
final class CpuReduce implements Reduce {
    private final CpuDevice device;

    CpuReduce(CpuDevice device) {
        this.device = device;
    }

    @Override
    public CpuDevice device() {
        return device;
    }

    @Override
    public void enqueueRowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        float[] xs = floats(x);
        float[] os = floats(out);
        for (int i = 0; i < rows; i++) {
            int row = i * cols;
            float s0 = 0f;
            float s1 = 0f;
            float s2 = 0f;
            float s3 = 0f;
            int j = 0;
            for (; j + 3 < cols; j += 4) {
                s0 += xs[row + j];
                s1 += xs[row + j + 1];
                s2 += xs[row + j + 2];
                s3 += xs[row + j + 3];
            }
            for (; j < cols; j++) {
                s0 += xs[row + j];
            }
            os[i] = (s0 + s1) + (s2 + s3);
        }
    }

    @Override
    public void enqueueColumnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        float[] xs = floats(x);
        float[] os = floats(out);
        Arrays.fill(os, 0, cols, 0f);
        // Row by row, so that the inner loop runs along memory and vectorises.
        for (int i = 0; i < rows; i++) {
            int row = i * cols;
            for (int j = 0; j < cols; j++) {
                os[j] += xs[row + j];
            }
        }
    }
}
