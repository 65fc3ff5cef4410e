package org.depengine.examples.customdevice;

import java.nio.ByteBuffer;
import org.depengine.api.device.DeviceBuffer;

/**
 * Memory of a {@link SimDevice}: host memory standing in for device memory, to be read and written
 * only by commands on the device's lanes ({@link SimStream#enqueue}). Not thread-safe: order its uses
 * through the engine, with a variable per buffer.
 */
public final class SimBuffer implements DeviceBuffer {
    private final SimDevice device;
    private volatile ByteBuffer data;

    SimBuffer(SimDevice device, ByteBuffer data) {
        this.device = device;
        this.data = data;
    }

    @Override
    public SimDevice device() {
        return device;
    }

    @Override
    public long size() {
        return data().capacity();
    }

    /**
     * The memory, a native-order direct buffer.
     *
     * @throws IllegalStateException if the buffer was closed
     */
    public ByteBuffer data() {
        ByteBuffer d = data;
        if (d == null) {
            throw new IllegalStateException("sim buffer on " + device.context() + " was closed");
        }
        return d;
    }

    @Override
    public void close() {
        data = null; // reclaimed with the object; commands still holding the buffer fail clearly
    }
}
