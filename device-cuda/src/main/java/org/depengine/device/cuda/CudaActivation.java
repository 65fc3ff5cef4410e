package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;

/** {@link Activation} with NVRTC kernels. */
final class CudaActivation extends CudaPrimitive implements Activation {
    CudaActivation(CudaDevice device) {
        super(device);
    }

    @Override
    public void relu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        CudaStream s = cuda(stream);
        nonNegative("n", n);
        CudaBuffer bx = floats(x, "x", n);
        CudaBuffer by = floats(y, "y", n);
        kernels().launchElementwise(s, "relu_f32", n, n, bx.ptr(), by.ptr());
    }

    @Override
    public void reluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        CudaStream s = cuda(stream);
        nonNegative("n", n);
        CudaBuffer by = floats(y, "y", n);
        CudaBuffer bdy = floats(dy, "dy", n);
        CudaBuffer bdx = floats(dx, "dx", n);
        kernels().launchElementwise(s, "relu_grad_f32", n, n, by.ptr(), bdy.ptr(), bdx.ptr());
    }
}
