package org.depengine.device.opencl;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.bytes;
import static org.depengine.api.device.primitive.PrimitiveChecks.disjoint;
import static org.depengine.api.device.primitive.PrimitiveChecks.host;
import static org.jocl.CL.clEnqueueCopyBuffer;

import java.nio.ByteBuffer;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Memcpy;
import org.jocl.CL;
import org.jocl.CLException;

/**
 * {@link Memcpy} with non-blocking {@code clEnqueueWriteBuffer}, {@code clEnqueueReadBuffer} and
 * {@code clEnqueueCopyBuffer}. Empty copies enqueue nothing (OpenCL refuses a size of 0).
 */
final class OpenClMemcpy extends OpenClPrimitive implements Memcpy {
    OpenClMemcpy(OpenClDevice device) {
        super(device);
    }

    @Override
    public void hostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        OpenClStream q = queue(stream);
        host(src, "src");
        OpenClBuffer d = buffer(device, dst, "dst", OpenClBuffer.class);
        bytes(d, "dst", dstOffsetBytes, src.remaining());
        if (src.hasRemaining()) {
            q.write(d, dstOffsetBytes, src);
        }
    }

    @Override
    public void deviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        OpenClStream q = queue(stream);
        host(dst, "dst");
        OpenClBuffer s = buffer(device, src, "src", OpenClBuffer.class);
        bytes(s, "src", srcOffsetBytes, dst.remaining());
        if (dst.hasRemaining()) {
            q.read(s, srcOffsetBytes, dst);
        }
    }

    @Override
    public void deviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        OpenClStream q = queue(stream);
        OpenClBuffer s = buffer(device, src, "src", OpenClBuffer.class);
        OpenClBuffer d = buffer(device, dst, "dst", OpenClBuffer.class);
        bytes(s, "src", srcOffsetBytes, bytes);
        bytes(d, "dst", dstOffsetBytes, bytes);
        disjoint(s, srcOffsetBytes, d, dstOffsetBytes, bytes);
        if (bytes == 0) {
            return;
        }
        try {
            clEnqueueCopyBuffer(q.queue(), s.mem(), d.mem(), srcOffsetBytes, dstOffsetBytes, bytes, 0, null, null);
        } catch (CLException e) {
            throw new EngineException("OpenCL error on " + q + ": could not copy " + bytes + " bytes between buffers: "
                    + CL.stringFor_errorCode(e.getStatus()), e);
        }
    }
}
