package org.depengine.examples.customdevice;

import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;

/**
 * Device type {@value #TYPE}: {@code sim:0} .. {@code sim:(n-1)}, simulated accelerators. Configured by
 * system properties read on the first {@link #probe()}:
 * <ul>
 *   <li>{@value #DEVICES_PROPERTY}: how many devices (default {@value #DEFAULT_DEVICES}, 1..64);</li>
 *   <li>{@value #LATENCY_PROPERTY}: how long each command takes on a lane, in microseconds (default
 *   {@value #DEFAULT_LATENCY_MICROS}, 0..1000000);</li>
 *   <li>{@code depengine.device.sim.disabled=true} reports the type unavailable.</li>
 * </ul>
 * An invalid value makes the type unavailable, with a reason naming the property, rather than failing
 * the lookup: {@link #probe()} never throws. The constructor does nothing, as the SPI asks.
 * Thread-safe.
 */
public final class SimDeviceProvider implements DeviceProvider {
    /** The device type name. */
    public static final String TYPE = "sim";
    /** The number of devices. */
    public static final String DEVICES_PROPERTY = "depengine.sim.devices";
    /** The simulated duration of each command, in microseconds. */
    public static final String LATENCY_PROPERTY = "depengine.sim.latencyMicros";
    /** Devices when {@value #DEVICES_PROPERTY} is not set. */
    public static final int DEFAULT_DEVICES = 2;
    /** Latency when {@value #LATENCY_PROPERTY} is not set. */
    public static final int DEFAULT_LATENCY_MICROS = 200;

    private volatile Availability availability;
    private volatile SimDevice[] devices = new SimDevice[0];

    /** For {@link java.util.ServiceLoader}. */
    public SimDeviceProvider() {
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Availability probe() {
        Availability a = availability;
        return a != null ? a : init();
    }

    private synchronized Availability init() {
        if (availability != null) {
            return availability;
        }
        Availability a;
        if (DeviceProvider.isDisabled(TYPE)) {
            a = Availability.no("disabled by -D" + DeviceProvider.disabledProperty(TYPE) + "=true");
        } else {
            try {
                int count = intProperty(DEVICES_PROPERTY, DEFAULT_DEVICES, 1, 64);
                long latencyNanos = intProperty(LATENCY_PROPERTY, DEFAULT_LATENCY_MICROS, 0, 1_000_000) * 1000L;
                SimDevice[] made = new SimDevice[count];
                for (int i = 0; i < count; i++) {
                    made[i] = new SimDevice(i, latencyNanos);
                }
                devices = made;
                a = Availability.yes();
            } catch (IllegalArgumentException e) {
                a = Availability.no(e.getMessage());
            }
        }
        availability = a;
        return a;
    }

    private static int intProperty(String name, int fallback, int min, int max) {
        String text = System.getProperty(name);
        if (text == null) {
            return fallback;
        }
        try {
            int v = Integer.parseInt(text.strip());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below, with the range
        }
        throw new IllegalArgumentException("-D" + name + "=" + text + " is invalid: use an integer in " + min + ".." + max);
    }

    @Override
    public int deviceCount() {
        return probe().available() ? devices.length : 0;
    }

    /**
     * The simulated device of that id.
     *
     * @throws IllegalStateException if the type is unavailable (the message gives the reason)
     * @throws IllegalArgumentException if there is no device of that id
     */
    @Override
    public Device device(int id) {
        Availability a = probe();
        if (!a.available()) {
            throw new IllegalStateException("device type '" + TYPE + "' is unavailable: " + a.reason());
        }
        SimDevice[] d = devices;
        if (id < 0 || id >= d.length) {
            throw new IllegalArgumentException("no device sim:" + id + ": there are " + d.length
                    + " (ids 0.." + (d.length - 1) + "; set -D" + DEVICES_PROPERTY + " for more)");
        }
        return d[id];
    }
}
