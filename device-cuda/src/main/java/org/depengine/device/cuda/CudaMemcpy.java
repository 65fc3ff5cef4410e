package org.depengine.device.cuda;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.bytes;
import static org.depengine.api.device.primitive.PrimitiveChecks.disjoint;
import static org.depengine.api.device.primitive.PrimitiveChecks.host;

import java.nio.ByteBuffer;
import jcuda.CudaException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Memcpy;

/**
 * {@link Memcpy} with {@code cuMemcpyHtoDAsync}, {@code cuMemcpyDtoHAsync} and {@code cuMemcpyDtoDAsync}.
 * Copies from pageable host memory may be synchronous; {@link CudaDevice#allocateHost} gives page-locked
 * memory, for which they are not. Empty copies enqueue nothing.
 */
final class CudaMemcpy extends CudaPrimitive implements Memcpy {
    CudaMemcpy(CudaDevice device) {
        super(device);
    }

    @Override
    public void hostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        CudaStream s = cuda(stream);
        host(src, "src");
        CudaBuffer d = buffer(device, dst, "dst", CudaBuffer.class);
        bytes(d, "dst", dstOffsetBytes, src.remaining());
        if (src.hasRemaining()) {
            s.write(d, dstOffsetBytes, src);
        }
    }

    @Override
    public void deviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        CudaStream s = cuda(stream);
        host(dst, "dst");
        CudaBuffer b = buffer(device, src, "src", CudaBuffer.class);
        bytes(b, "src", srcOffsetBytes, dst.remaining());
        if (dst.hasRemaining()) {
            s.read(b, srcOffsetBytes, dst);
        }
    }

    @Override
    public void deviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        CudaStream s = cuda(stream);
        CudaBuffer from = buffer(device, src, "src", CudaBuffer.class);
        CudaBuffer to = buffer(device, dst, "dst", CudaBuffer.class);
        bytes(from, "src", srcOffsetBytes, bytes);
        bytes(to, "dst", dstOffsetBytes, bytes);
        disjoint(from, srcOffsetBytes, to, dstOffsetBytes, bytes);
        if (bytes == 0) {
            return;
        }
        device.bind();
        try {
            device.driver().copyDtoDAsync(to.ptr(), dstOffsetBytes, from.ptr(), srcOffsetBytes, bytes, s.cuStream());
        } catch (CudaException e) {
            throw failure(s, "copy " + bytes + " bytes between buffers", e);
        }
    }
}
