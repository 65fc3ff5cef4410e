package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;

/** {@link SoftmaxCrossEntropy}: one work-group per row, reducing the maximum and the sum in local memory. */
final class OpenClSoftmaxCrossEntropy extends OpenClPrimitive implements SoftmaxCrossEntropy {
    OpenClSoftmaxCrossEntropy(OpenClDevice device) {
        super(device);
    }

    @Override
    public void lossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale) {
        OpenClStream q = queue(stream);
        long size = matrix("logits", rows, cols);
        if (rows > 0 && cols == 0) {
            throw new IllegalArgumentException("cols must be >= 1 (a softmax over no classes), got 0 with " + rows
                    + " rows");
        }
        OpenClBuffer x = floats(logits, "logits", size);
        OpenClBuffer lab = floats(labels, "labels", rows);
        OpenClBuffer ls = floats(loss, "loss", rows);
        OpenClBuffer d = dlogits == null ? null : floats(dlogits, "dlogits", size);
        if (loss == logits || loss == dlogits) {
            throw new IllegalArgumentException("'loss' must not be the 'logits' or 'dlogits' buffer");
        }
        if (rows == 0) {
            return;
        }
        OpenClKernel k = kernel("softmax_xent_f32");
        int group = rowGroup(k, cols);
        // Without a gradient the kernel never touches its d argument; the logits stand in for it.
        k.launch(q, new long[] {(long) rows * group}, new long[] {group}, cols, x, lab, ls, d == null ? x : d,
                d == null ? 0 : 1, gradScale, OpenClKernel.local((long) group * Float.BYTES));
    }
}
