package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.distinct;
import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Matmul;

/**
 * {@link Matmul} with a kernel that stages {@code TILE × TILE} tiles of both operands in local memory
 * (one work item per element of C), or, on devices whose work-groups cannot hold a tile, a kernel
 * without local memory. {@code k = 0} or {@code alpha = 0} only scales C, so A and B are not read, as
 * in BLAS.
 */
final class OpenClMatmul extends OpenClPrimitive implements Matmul {
    OpenClMatmul(OpenClDevice device) {
        super(device);
    }

    @Override
    public void sgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        OpenClStream q = queue(stream);
        nonNegative("m", m);
        nonNegative("n", n);
        nonNegative("k", k);
        OpenClBuffer ba = floats(a, "a", (long) m * k);
        OpenClBuffer bb = floats(b, "b", (long) k * n);
        OpenClBuffer bc = floats(c, "c", (long) m * n);
        distinct(c, "c", a, "a");
        distinct(c, "c", b, "b");
        long size = (long) m * n;
        if (size == 0) {
            return;
        }
        if (k == 0 || alpha == 0f) {
            if (beta == 0f) {
                launch1d(q, "fill_f32", size, bc, 0L, size, 0f);
            } else if (beta != 1f) {
                launch1d(q, "scale_f32", size, size, beta, bc, bc);
            }
            return;
        }
        int ta = transA ? 1 : 0;
        int tb = transB ? 1 : 0;
        OpenClKernel tiled = kernel("sgemm_tiled");
        int tile = PrimitiveKernels.TILE;
        if (tiled.maxWorkGroupSize() >= (long) tile * tile) {
            tiled.launch(q, new long[] {roundUp(n, tile), roundUp(m, tile)}, new long[] {tile, tile}, ta, tb, m, n, k,
                    alpha, ba, bb, beta, bc);
        } else {
            kernel("sgemm_simple").launch(q, new long[] {n, m}, ta, tb, m, n, k, alpha, ba, bb, beta, bc);
        }
    }
}
