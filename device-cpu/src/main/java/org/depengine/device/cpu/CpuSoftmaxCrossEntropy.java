package org.depengine.device.cpu;

import static org.depengine.device.cpu.CpuBuffer.floats;

import java.util.Arrays;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;

/** {@link SoftmaxCrossEntropy} row by row: maximum, sum of exponentials, loss, then the gradient. */
final class CpuSoftmaxCrossEntropy implements SoftmaxCrossEntropy {
    private final CpuDevice device;

    CpuSoftmaxCrossEntropy(CpuDevice device) {
        this.device = device;
    }

    @Override
    public CpuDevice device() {
        return device;
    }

    @Override
    public void enqueueLossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale) {
        float[] x = floats(logits);
        float[] lab = floats(labels);
        float[] ls = floats(loss);
        float[] d = dlogits == null ? null : floats(dlogits);
        for (int i = 0; i < rows; i++) {
            int row = i * cols;
            int label = Float.floatToRawIntBits(lab[i]); // int32 labels are stored as raw float bits
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < cols; j++) {
                max = Math.max(max, x[row + j]);
            }
            float sum = 0f;
            for (int j = 0; j < cols; j++) {
                sum += (float) Math.exp(x[row + j] - max);
            }
            float logSum = (float) Math.log(sum);
            if (label < 0 || label >= cols) {
                ls[i] = Float.NaN;
                if (d != null) {
                    Arrays.fill(d, row, row + cols, Float.NaN);
                }
                continue;
            }
            ls[i] = logSum - (x[row + label] - max);
            if (d != null) {
                for (int j = 0; j < cols; j++) {
                    float p = (float) Math.exp(x[row + j] - max - logSum);
                    d[row + j] = (j == label ? p - 1f : p) * gradScale;
                }
            }
        }
    }
}
