package org.depengine.device.cpu;

import java.nio.ByteBuffer;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;

/** CPU "device" memory: a direct buffer. */
public final class CpuBuffer implements DeviceBuffer {
    private final Device device;
    private ByteBuffer data;

    CpuBuffer(Device device, ByteBuffer data) {
        this.device = device;
        this.data = data;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public long size() {
        return data().capacity();
    }

    /**
     * The memory, as a native-order direct buffer.
     *
     * @throws IllegalStateException if the buffer was closed
     */
    public ByteBuffer data() {
        ByteBuffer d = data;
        if (d == null) {
            throw new IllegalStateException("CPU buffer on " + device.context() + " was closed");
        }
        return d;
    }

    @Override
    public void close() {
        data = null; // the direct memory is reclaimed with the buffer object
    }
}
