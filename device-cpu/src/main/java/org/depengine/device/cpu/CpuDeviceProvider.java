package org.depengine.device.cpu;

import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;

/**
 * Device type {@code cpu}: every id ≥ 0 is a logical CPU device, as in MXNet (ids let a per-device
 * engine keep separate worker blocks). Always available unless disabled with
 * {@code -Ddepengine.device.cpu.disabled=true}. Thread-safe.
 */
public final class CpuDeviceProvider implements DeviceProvider {
    /** The device type name. */
    public static final String TYPE = "cpu";

    private final ConcurrentHashMap<Integer, CpuDevice> devices = new ConcurrentHashMap<>();
    private volatile Availability availability;

    /** For {@link java.util.ServiceLoader}. */
    public CpuDeviceProvider() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Availability probe() {
        Availability a = availability;
        if (a == null) {
            a = DeviceProvider.isDisabled(TYPE)
                    ? Availability.no("disabled by -D" + DeviceProvider.disabledProperty(TYPE) + "=true")
                    : Availability.yes();
            availability = a;
        }
        return a;
    }

    @Override
    public int deviceCount() {
        return probe().available() ? Integer.MAX_VALUE : 0;
    }

    @Override
    public Device device(int id) {
        Availability a = probe();
        if (!a.available()) {
            throw new IllegalStateException("device type 'cpu' is unavailable: " + a.reason());
        }
        if (id < 0) {
            throw new IllegalArgumentException("CPU device id must be >= 0, got " + id);
        }
        return devices.computeIfAbsent(id, i -> new CpuDevice(Context.cpu(i)));
    }
}
