package org.depengine.device.cpu;

import static org.depengine.api.device.primitive.PrimitiveChecks.buffer;
import static org.depengine.api.device.primitive.PrimitiveChecks.bytes;
import static org.depengine.api.device.primitive.PrimitiveChecks.disjoint;
import static org.depengine.api.device.primitive.PrimitiveChecks.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Memcpy;

/**
 * Copies into and out of a {@link CpuBuffer}'s {@code float[]}, done when the call returns. Whole floats
 * go as bulk copies; a range that starts or ends inside a float goes through a small byte buffer.
 */
final class CpuMemcpy extends CpuPrimitive implements Memcpy {
    CpuMemcpy(CpuDevice device) {
        super(device);
    }

    @Override
    public void hostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        lane(stream);
        host(src, "src");
        CpuBuffer d = buffer(device, dst, "dst", CpuBuffer.class);
        bytes(d, "dst", dstOffsetBytes, src.remaining());
        copyIn(native_(src), d.floats(), dstOffsetBytes);
    }

    @Override
    public void deviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        lane(stream);
        host(dst, "dst");
        CpuBuffer s = buffer(device, src, "src", CpuBuffer.class);
        bytes(s, "src", srcOffsetBytes, dst.remaining());
        copyOut(s.floats(), srcOffsetBytes, native_(dst));
    }

    @Override
    public void deviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        lane(stream);
        CpuBuffer s = buffer(device, src, "src", CpuBuffer.class);
        CpuBuffer d = buffer(device, dst, "dst", CpuBuffer.class);
        bytes(s, "src", srcOffsetBytes, bytes);
        bytes(d, "dst", dstOffsetBytes, bytes);
        disjoint(s, srcOffsetBytes, d, dstOffsetBytes, bytes);
        if (srcOffsetBytes % Float.BYTES == 0 && dstOffsetBytes % Float.BYTES == 0 && bytes % Float.BYTES == 0) {
            System.arraycopy(s.floats(), (int) (srcOffsetBytes / Float.BYTES), d.floats(),
                    (int) (dstOffsetBytes / Float.BYTES), (int) (bytes / Float.BYTES));
        } else {
            ByteBuffer tmp = ByteBuffer.allocate((int) bytes).order(ByteOrder.nativeOrder());
            copyOut(s.floats(), srcOffsetBytes, tmp);
            copyIn(tmp, d.floats(), dstOffsetBytes);
        }
    }

    /** A view of the buffer's remaining bytes in native order; the caller's position is not moved. */
    private static ByteBuffer native_(ByteBuffer b) {
        return b.slice().order(ByteOrder.nativeOrder());
    }

    /** Copies all of {@code src} (native order) to byte {@code offset} of {@code dst}. */
    static void copyIn(ByteBuffer src, float[] dst, long offset) {
        int len = src.remaining();
        if (offset % Float.BYTES == 0 && len % Float.BYTES == 0) {
            src.asFloatBuffer().get(dst, (int) (offset / Float.BYTES), len / Float.BYTES);
            return;
        }
        if (len == 0) {
            return;
        }
        // Partial floats at an end: patch the bytes in a copy of the floats they touch.
        int first = (int) (offset / Float.BYTES);
        int count = (int) ((offset + len + Float.BYTES - 1) / Float.BYTES) - first;
        ByteBuffer tmp = ByteBuffer.allocate(count * Float.BYTES).order(ByteOrder.nativeOrder());
        tmp.asFloatBuffer().put(dst, first, count);
        tmp.position((int) (offset - (long) first * Float.BYTES));
        tmp.put(src.duplicate());
        tmp.clear();
        tmp.asFloatBuffer().get(dst, first, count);
    }

    /** Fills all of {@code dst} (native order) from byte {@code offset} of {@code src}. */
    static void copyOut(float[] src, long offset, ByteBuffer dst) {
        int len = dst.remaining();
        if (offset % Float.BYTES == 0 && len % Float.BYTES == 0) {
            dst.asFloatBuffer().put(src, (int) (offset / Float.BYTES), len / Float.BYTES);
            return;
        }
        if (len == 0) {
            return;
        }
        int first = (int) (offset / Float.BYTES);
        int count = (int) ((offset + len + Float.BYTES - 1) / Float.BYTES) - first;
        ByteBuffer tmp = ByteBuffer.allocate(count * Float.BYTES).order(ByteOrder.nativeOrder());
        tmp.asFloatBuffer().put(src, first, count);
        int start = (int) (offset - (long) first * Float.BYTES);
        tmp.position(start).limit(start + len);
        dst.duplicate().put(tmp);
    }
}
