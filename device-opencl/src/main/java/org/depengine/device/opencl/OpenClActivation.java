package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.nonNegative;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;

/** {@link Activation}: one work item per element. */
final class OpenClActivation extends OpenClPrimitive implements Activation {
    OpenClActivation(OpenClDevice device) {
        super(device);
    }

    @Override
    public void relu(Stream stream, long n, DeviceBuffer x, DeviceBuffer y) {
        OpenClStream q = queue(stream);
        nonNegative("n", n);
        OpenClBuffer bx = floats(x, "x", n);
        OpenClBuffer by = floats(y, "y", n);
        launch1d(q, "relu_f32", n, n, bx, by);
    }

    @Override
    public void reluGrad(Stream stream, long n, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx) {
        OpenClStream q = queue(stream);
        nonNegative("n", n);
        OpenClBuffer by = floats(y, "y", n);
        OpenClBuffer bdy = floats(dy, "dy", n);
        OpenClBuffer bdx = floats(dx, "dx", n);
        launch1d(q, "relu_grad_f32", n, n, by, bdy, bdx);
    }
}
