package org.depengine.device.cpu;

import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;

/**
 * CPU "device" memory: a Java {@code float[]} holding the bytes in native order, so that the CPU
 * primitives work on plain arrays (which the JIT vectorises). A buffer of {@code size} bytes has
 * {@code ceil(size / 4)} floats; int32 data (labels) is stored as the raw bits of the floats. Not
 * thread-safe: order its uses through the engine, as for any {@link DeviceBuffer}.
 */
public final class CpuBuffer implements DeviceBuffer {
    private final Device device;
    private final long size;
    private float[] data;

    CpuBuffer(Device device, long size) {
        this.device = device;
        this.size = size;
        this.data = new float[(int) ((size + Float.BYTES - 1) / Float.BYTES)];
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public long size() {
        return size;
    }

    /**
     * The memory itself (not a copy): element {@code i} is float {@code i} of the buffer, as the
     * primitives of {@code org.depengine.api.device.primitive} index it. Reading it gives the results
     * of CPU primitives without a copy; portable code uses
     * {@link org.depengine.api.device.primitive.Memcpy#deviceToHost} instead. Touch it only inside an
     * op that declares the buffer's variable (or when no op uses the buffer).
     *
     * @throws IllegalStateException if the buffer was closed
     */
    public float[] floats() {
        float[] d = data;
        if (d == null) {
            throw new IllegalStateException("CPU buffer of " + size + " bytes on " + device.context() + " was closed");
        }
        return d;
    }

    /** The floats of a buffer of a CPU device (the primitives have checked that it is one). */
    static float[] floats(DeviceBuffer b) {
        return ((CpuBuffer) b).floats();
    }

    /** Drops the memory (the garbage collector reclaims it); idempotent. */
    @Override
    public void close() {
        data = null;
    }

    @Override
    public String toString() {
        return "CpuBuffer[" + device.context() + ", " + size + " bytes" + (data == null ? ", closed" : "") + "]";
    }
}
