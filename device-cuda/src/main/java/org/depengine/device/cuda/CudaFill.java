package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.elements;

import jcuda.CudaException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Fill;

/** {@link Fill} with {@code cuMemsetD32Async} of the value's bits: no kernel needed. */
final class CudaFill extends CudaPrimitive implements Fill {
    CudaFill(CudaDevice device) {
        super(device);
    }

    @Override
    public void fill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
        CudaStream s = cuda(stream);
        CudaBuffer d = buffer(device, dst, "dst", CudaBuffer.class);
        elements(d, "dst", offset, count);
        if (count == 0) {
            return;
        }
        fill(s, d, offset, count, value);
    }

    /** Enqueues the fill without checks (for other primitives). */
    static void fill(CudaStream s, CudaBuffer d, long offset, long count, float value) {
        s.device().bind();
        try {
            s.device().driver().memsetD32Async(d.ptr(), offset * Float.BYTES, Float.floatToRawIntBits(value), count,
                    s.cuStream());
        } catch (CudaException e) {
            throw failure(s, "fill " + count + " floats", e);
        }
    }
}
