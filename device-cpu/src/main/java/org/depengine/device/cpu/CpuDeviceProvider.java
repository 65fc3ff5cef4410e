package org.depengine.device.cpu;

import org.depengine.api.Context;
import org.depengine.api.device.AbstractDeviceProvider;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;

/**
 * Device type {@code cpu}: every id ≥ 0 is a logical CPU device, as in MXNet (ids let a per-device
 * engine keep separate worker blocks). Always available unless disabled with
 * {@code -Ddepengine.device.cpu.disabled=true}. Its devices are never closed ({@link #close()}).
 * Thread-safe.
 */
public final class CpuDeviceProvider extends AbstractDeviceProvider<Device> {
    /** The device type name. */
    public static final String TYPE = "cpu";

    /** For {@link java.util.ServiceLoader}. */
    public CpuDeviceProvider() {
        super(TYPE);
    }

    @Override
    protected Availability detect() {
        return Availability.yes();
    }

    /** Any id: {@link Integer#MAX_VALUE}. */
    @Override
    protected int countDevices() {
        return Integer.MAX_VALUE;
    }

    @Override
    protected Device open(int id) {
        return new CpuDevice(Context.cpu(id));
    }

    /**
     * Nothing: a CPU device holds only Java memory, which the garbage collector frees, so its devices
     * stay open when the last engine using them closes, and a {@link CpuBuffer} made on one stays usable
     * with later engines.
     */
    @Override
    public void close() {
        // Deliberately keeps the devices: closing would free nothing and only orphan their buffers.
    }
}
