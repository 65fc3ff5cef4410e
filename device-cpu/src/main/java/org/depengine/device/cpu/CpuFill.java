package org.depengine.device.cpu;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.elements;

import java.util.Arrays;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Fill;

/** {@link Fill} with {@link Arrays#fill(float[], int, int, float)}. */
final class CpuFill extends CpuPrimitive implements Fill {
    CpuFill(CpuDevice device) {
        super(device);
    }

    @Override
    public void fill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        lane(stream);
        CpuBuffer d = buffer(device, dst, "dst", CpuBuffer.class);
        elements(d, "dst", offset, count);
        Arrays.fill(d.floats(), (int) offset, (int) (offset + count), value);
    }
}
