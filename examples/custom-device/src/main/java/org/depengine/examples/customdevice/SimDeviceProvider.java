package org.depengine.examples.customdevice;

import org.depengine.api.device.AbstractDeviceProvider;
import org.depengine.api.device.Availability;
import org.depengine.api.spi.EngineConfig;

/**
 * Device type {@value #TYPE}: {@code sim:0} .. {@code sim:(n-1)}, simulated accelerators. Configured by
 * system properties read on the first {@link #probe()}, declared in {@link SimSettings}:
 * <ul>
 *   <li>{@value #DEVICES_PROPERTY}: how many devices (default {@value #DEFAULT_DEVICES}, 1..64);</li>
 *   <li>{@value #LATENCY_PROPERTY}: how long each command takes on a lane, in microseconds (default
 *   {@value #DEFAULT_LATENCY_MICROS}, 0..1000000);</li>
 *   <li>{@code depengine.device.sim.disabled=true} reports the type unavailable.</li>
 * </ul>
 * An invalid value makes the type unavailable, with a reason naming the property, rather than failing
 * the lookup. {@link AbstractDeviceProvider} does the rest: the answer is cached, devices are opened on
 * first use and closed with the provider. The constructor does nothing, as the SPI asks. Thread-safe.
 */
public final class SimDeviceProvider extends AbstractDeviceProvider<SimDevice> {
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

    private volatile int count;
    private volatile long latencyNanos;

    /** For {@link java.util.ServiceLoader}. */
    public SimDeviceProvider() {
        super(TYPE);
    }

    /** Reads the properties; an invalid one makes the type unavailable, naming it. */
    @Override
    protected Availability detect() {
        try {
            count = EngineConfig.system(SimSettings.DEVICES);
            latencyNanos = EngineConfig.system(SimSettings.LATENCY_MICROS) * 1000L;
            return Availability.yes();
        } catch (IllegalArgumentException e) {
            return Availability.no(e.getMessage());
        }
    }

    @Override
    protected int countDevices() {
        return count;
    }

    @Override
    protected SimDevice open(int id) {
        return new SimDevice(id, latencyNanos);
    }
}
