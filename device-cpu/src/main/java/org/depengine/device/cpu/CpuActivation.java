package org.depengine.device.cpu;

import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;

/** {@link Activation} as loops over arrays. */
final class CpuActivation extends CpuPrimitive implements Activation {
    CpuActivation(CpuDevice device) {
        super(device);
    }

    @Override
    public void relu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        lane(stream);
        nonNegative("n", n);
        float[] xs = floats(x, "x", n);
        float[] ys = floats(y, "y", n);
        for (int i = 0; i < (int) n; i++) {
            float v = xs[i];
            // "v > 0 ? v : 0", as on the GPUs: NaN and -0 become 0.
            ys[i] = v > 0f ? v : 0f;
        }
    }

    @Override
    public void reluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        lane(stream);
        nonNegative("n", n);
        float[] ys = floats(y, "y", n);
        float[] dys = floats(dy, "dy", n);
        float[] dxs = floats(dx, "dx", n);
        for (int i = 0; i < (int) n; i++) {
            dxs[i] = ys[i] > 0f ? dys[i] : 0f;
        }
    }
}
