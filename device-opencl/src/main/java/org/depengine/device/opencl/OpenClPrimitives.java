package org.depengine.device.opencl;

import static org.jocl.CL.clEnqueueCopyBuffer;

import java.nio.ByteBuffer;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Fill;
import org.depengine.api.device.primitive.Matmul;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.device.primitive.Reduce;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;
import org.jocl.CL;
import org.jocl.CLException;

/**
 * Every primitive of {@code org.depengine.api.device.primitive} on one OpenCL device: copies with
 * non-blocking {@code clEnqueueWriteBuffer}, {@code clEnqueueReadBuffer} and {@code clEnqueueCopyBuffer},
 * the rest as kernels of {@link PrimitiveKernels}: one work item per element, per-row reductions and
 * softmax by one work-group per row reducing in local memory, and sgemm staging {@code TILE × TILE} tiles
 * in local memory (or, where work-groups cannot hold a tile, a kernel without local memory). Fill is a
 * kernel because some OpenCL 1.1 platforms lack {@code clEnqueueFillBuffer}. The interfaces have checked
 * the arguments. Stateless and thread-safe.
 */
final class OpenClPrimitives implements Memcpy, Fill, Matmul, Elementwise, Activation, SoftmaxCrossEntropy, Reduce {
    /** 1-D launches are rounded up to a multiple of this, so that OpenCL can pick a good work-group size. */
    static final int GRAIN = 64;
    /** The largest work-group of the per-row reduction kernels. */
    static final int MAX_ROW_GROUP = 256;

    private final OpenClDevice device;

    OpenClPrimitives(OpenClDevice device) {
        this.device = device;
    }

    @Override
    public OpenClDevice device() {
        return device;
    }

    @Override
    public void enqueueHostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        queue(stream).enqueueWrite((OpenClBuffer) dst, dstOffsetBytes, src);
    }

    @Override
    public void enqueueDeviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        queue(stream).enqueueRead((OpenClBuffer) src, srcOffsetBytes, dst);
    }

    @Override
    public void enqueueDeviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        OpenClStream q = queue(stream);
        try {
            clEnqueueCopyBuffer(q.queue(), ((OpenClBuffer) src).mem(), ((OpenClBuffer) dst).mem(), srcOffsetBytes,
                    dstOffsetBytes, bytes, 0, null, null);
        } catch (CLException e) {
            throw new EngineException("OpenCL error on " + q + ": could not copy " + bytes + " bytes between buffers: "
                    + CL.stringFor_errorCode(e.getStatus()), e);
        }
    }

    @Override
    public void enqueueFill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        launch1d(stream, "fill_f32", count, dst, offset, count, value);
    }

    @Override
    public void enqueueSgemm(Stream stream, boolean transA, boolean transB, int m, int n, int k, float alpha,
            DeviceBuffer a, DeviceBuffer b, float beta, DeviceBuffer c) {
        long size = (long) m * n;
        if (k == 0 || alpha == 0f) {
            // Only C is scaled, as in BLAS: A and B are not read.
            if (beta == 0f) {
                launch1d(stream, "fill_f32", size, c, 0L, size, 0f);
            } else if (beta != 1f) {
                launch1d(stream, "scale_f32", size, size, beta, c, c);
            }
            return;
        }
        int ta = transA ? 1 : 0;
        int tb = transB ? 1 : 0;
        OpenClKernel tiled = kernel("sgemm_tiled");
        int tile = PrimitiveKernels.TILE;
        if (tiled.maxWorkGroupSize() >= (long) tile * tile) {
            tiled.launch(queue(stream), new long[] {roundUp(n, tile), roundUp(m, tile)}, new long[] {tile, tile}, ta,
                    tb, m, n, k, alpha, a, b, beta, c);
        } else {
            kernel("sgemm_simple").launch(queue(stream), new long[] {n, m}, ta, tb, m, n, k, alpha, a, b, beta, c);
        }
    }

    @Override
    public void enqueueBinary(Stream stream, Op op, long n, DeviceBuffer x, DeviceBuffer y, DeviceBuffer out) {
        launch1d(stream, op == Op.ADD ? "add_f32" : "mul_f32", n, n, x, y, out);
    }

    @Override
    public void enqueueAxpy(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer y) {
        launch1d(stream, "axpy_f32", n, n, alpha, x, y);
    }

    @Override
    public void enqueueScale(Stream stream, long n, float alpha, DeviceBuffer x, DeviceBuffer out) {
        launch1d(stream, "scale_f32", n, n, alpha, x, out);
    }

    @Override
    public void enqueueAddRowVector(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer b) {
        long size = (long) rows * cols;
        launch1d(stream, "add_row_vector_f32", size, size, cols, x, b);
    }

    @Override
    public void enqueueRelu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        launch1d(stream, "relu_f32", n, n, x, y);
    }

    @Override
    public void enqueueReluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        launch1d(stream, "relu_grad_f32", n, n, y, dy, dx);
    }

    @Override
    public void enqueueLossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale) {
        // Without a gradient the kernel never touches its d argument; the logits stand in for it.
        launchPerRow(stream, "softmax_xent_f32", rows, cols, logits, labels, loss,
                dlogits == null ? logits : dlogits, dlogits == null ? 0 : 1, gradScale);
    }

    @Override
    public void enqueueRowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        launchPerRow(stream, "row_sums_f32", rows, cols, x, out);
    }

    @Override
    public void enqueueColumnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
        launch1d(stream, "column_sums_f32", cols, rows, cols, x, out);
    }

    private static OpenClStream queue(Stream stream) {
        return (OpenClStream) stream;
    }

    private OpenClKernel kernel(String name) {
        return device.kernel(PrimitiveKernels.SOURCE, name);
    }

    /** Launches a 1-D kernel over {@code n > 0} items (the kernel ignores items past {@code n}). */
    private void launch1d(Stream stream, String kernel, long n, Object... args) {
        kernel(kernel).launch(queue(stream), new long[] {roundUp(n, GRAIN)}, args);
    }

    /**
     * Launches a kernel with one work-group per row, {@code (cols, args..., local scratch)} as arguments.
     * The work-group size is a power of two, at most {@link #MAX_ROW_GROUP} and what the kernel allows,
     * and no larger than needed for {@code cols} columns.
     */
    private void launchPerRow(Stream stream, String name, int rows, int cols, Object... args) {
        OpenClKernel k = kernel(name);
        int size = Integer.highestOneBit((int) Math.min(MAX_ROW_GROUP, k.maxWorkGroupSize()));
        int needed = cols <= 1 ? 1 : Integer.highestOneBit(cols - 1) << 1;
        int group = Math.max(1, Math.min(size, needed));
        Object[] all = new Object[args.length + 2];
        all[0] = cols;
        System.arraycopy(args, 0, all, 1, args.length);
        all[all.length - 1] = OpenClKernel.local((long) group * Float.BYTES);
        k.launch(queue(stream), new long[] {(long) rows * group}, new long[] {group}, all);
    }

    static long roundUp(long n, long multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }
}
