package org.depengine.device.cpu;

import static org.depengine.device.cpu.CpuBuffer.floats;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Memcpy;

/**
 * Copies into and out of a {@link CpuBuffer}'s {@code float[]}, done when the call returns. Whole floats
 * go as bulk copies; a range that starts or ends inside a float goes through a small byte buffer.
 */
final class CpuMemcpy implements Memcpy {
    private final CpuDevice device;

    CpuMemcpy(CpuDevice device) {
        this.device = device;
    }

    @Override
    public CpuDevice device() {
        return device;
    }

    @Override
    public void enqueueHostToDevice(Stream stream, ByteBuffer src, DeviceBuffer dst, long dstOffsetBytes) {
        copyIn(native_(src), floats(dst), dstOffsetBytes);
    }

    @Override
    public void enqueueDeviceToHost(Stream stream, DeviceBuffer src, long srcOffsetBytes, ByteBuffer dst) {
        copyOut(floats(src), srcOffsetBytes, native_(dst));
    }

    @Override
    public void enqueueDeviceToDevice(Stream stream, DeviceBuffer src, long srcOffsetBytes, DeviceBuffer dst,
            long dstOffsetBytes, long bytes) {
        if (srcOffsetBytes % Float.BYTES == 0 && dstOffsetBytes % Float.BYTES == 0 && bytes % Float.BYTES == 0) {
            System.arraycopy(floats(src), (int) (srcOffsetBytes / Float.BYTES), floats(dst),
                    (int) (dstOffsetBytes / Float.BYTES), (int) (bytes / Float.BYTES));
        } else {
            ByteBuffer tmp = ByteBuffer.allocate((int) bytes).order(ByteOrder.nativeOrder());
            copyOut(floats(src), srcOffsetBytes, tmp);
            copyIn(tmp, floats(dst), dstOffsetBytes);
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
        } else if (len > 0) {
            // Partial floats at an end: patch the bytes in a copy of the floats they touch.
            ByteBuffer window = window(dst, offset, len);
            window.put(src.duplicate()).clear();
            window.asFloatBuffer().get(dst, (int) (offset / Float.BYTES), window.capacity() / Float.BYTES);
        }
    }

    /** Fills all of {@code dst} (native order) from byte {@code offset} of {@code src}. */
    static void copyOut(float[] src, long offset, ByteBuffer dst) {
        int len = dst.remaining();
        if (offset % Float.BYTES == 0 && len % Float.BYTES == 0) {
            dst.asFloatBuffer().put(src, (int) (offset / Float.BYTES), len / Float.BYTES);
        } else if (len > 0) {
            dst.duplicate().put(window(src, offset, len));
        }
    }

    /**
     * A copy of the floats that bytes {@code offset .. offset + len} of {@code floats} touch, as
     * native-order bytes, with its position and limit on those bytes.
     */
    private static ByteBuffer window(float[] floats, long offset, int len) {
        int first = (int) (offset / Float.BYTES);
        int count = (int) ((offset + len + Float.BYTES - 1) / Float.BYTES) - first;
        ByteBuffer window = ByteBuffer.allocate(count * Float.BYTES).order(ByteOrder.nativeOrder());
        window.asFloatBuffer().put(floats, first, count);
        int start = (int) (offset - (long) first * Float.BYTES);
        window.position(start).limit(start + len);
        return window;
    }
}
