package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.elements;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Fill;

/** {@link Fill} with a kernel (not {@code clEnqueueFillBuffer}, which some OpenCL 1.1 platforms lack). */
final class OpenClFill extends OpenClPrimitive implements Fill {
    OpenClFill(OpenClDevice device) {
        super(device);
    }

    @Override
    public void fill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        OpenClStream q = queue(stream);
        OpenClBuffer d = buffer(device, dst, "dst", OpenClBuffer.class);
        elements(d, "dst", offset, count);
        launch1d(q, "fill_f32", count, d, offset, count, value);
    }
}
