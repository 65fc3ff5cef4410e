package org.depengine.device.cpu;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.elements;

import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.PrimitiveChecks;

/** The argument checks shared by the CPU primitives: each returns the array the work reads or writes. */
abstract class CpuPrimitive {
    final CpuDevice device;

    CpuPrimitive(CpuDevice device) {
        this.device = device;
    }

    /** Checks the stream: one of this device's lanes. */
    final void lane(Stream stream) {
        PrimitiveChecks.stream(device, stream, CpuStream.class);
    }

    /** The floats of {@code b}, checked to hold {@code count} elements. */
    final float[] floats(DeviceBuffer b, String name, long count) {
        CpuBuffer cb = buffer(device, b, name, CpuBuffer.class);
        elements(cb, name, 0, count);
        return cb.floats();
    }
}
