package org.depengine.device.cpu;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Matmul;

/** {@link Matmul} by {@link Sgemm}, on the calling thread. */
final class CpuMatmul extends CpuPrimitive implements Matmul {
    CpuMatmul(CpuDevice device) {
        super(device);
    }

    @Override
    public void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        lane(stream);
        nonNegative("m", m);
        nonNegative("n", n);
        nonNegative("k", k);
        float[] as = floats(a, "a", (long) m * k);
        float[] bs = floats(b, "b", (long) k * n);
        float[] cs = floats(c, "c", (long) m * n);
        distinct(c, "c", a, "a");
        distinct(c, "c", b, "b");
        Sgemm.sgemm(transA, transB, m, n, k, alpha, as, bs, beta, cs);
    }
}
