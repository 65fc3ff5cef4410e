package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.matrix;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;

/** {@link SoftmaxCrossEntropy}: an NVRTC kernel with one block per row, reducing in shared memory. */
final class CudaSoftmaxCrossEntropy extends CudaPrimitive implements SoftmaxCrossEntropy {
    CudaSoftmaxCrossEntropy(CudaDevice device) {
        super(device);
    }

    @Override
    public void lossAndGradient(Stream stream, int rows, int cols, DeviceBuffer logits, DeviceBuffer labels,
            DeviceBuffer loss, DeviceBuffer dlogits, float gradScale) {
        CudaStream s = cuda(stream);
        long size = matrix("logits", rows, cols);
        if (rows > 0 && cols == 0) {
            throw new IllegalArgumentException("cols must be >= 1 (a softmax over no classes), got 0 with " + rows
                    + " rows");
        }
        CudaBuffer x = floats(logits, "logits", size);
        CudaBuffer lab = floats(labels, "labels", rows);
        CudaBuffer ls = floats(loss, "loss", rows);
        CudaBuffer d = dlogits == null ? null : floats(dlogits, "dlogits", size);
        if (loss == logits || loss == dlogits) {
            throw new IllegalArgumentException("'loss' must not be the 'logits' or 'dlogits' buffer");
        }
        // Without a gradient the kernel never touches its d parameter; the logits stand in for it.
        kernels().launchPerRow(s, "softmax_xent_f32", rows, cols, cols, x.ptr(), lab.ptr(), ls.ptr(),
                d == null ? x.ptr() : d.ptr(), d == null ? 0 : 1, gradScale);
    }
}
