package org.depengine.api.device;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.internal.ProviderLookup;

/**
 * Looks up device providers by type, through {@link java.util.ServiceLoader}. The providers are found
 * once, on first use, and cached for the life of the class loader. Thread-safe.
 */
public final class Devices {
    private static final String HOW_TO_ADD = "Add the device module's jar (device-cpu, device-opencl, device-cuda, or a "
            + "plugin) to the class or module path; a plugin implements org.depengine.api.device.DeviceProvider and "
            + "declares it with 'provides' in module-info and in META-INF/services.";
    private static volatile ProviderLookup<DeviceProvider> lookup;
    private static final ConcurrentHashMap<String, DeviceProvider> BY_TYPE = new ConcurrentHashMap<>();

    private Devices() {
    }

    private static ProviderLookup<DeviceProvider> lookup() {
        ProviderLookup<DeviceProvider> l = lookup;
        if (l == null) {
            synchronized (Devices.class) {
                l = lookup;
                if (l == null) {
                    l = ProviderLookup.load(DeviceProvider.class, "device type", DeviceProvider::type);
                    lookup = l;
                }
            }
        }
        return l;
    }

    /** The device types found, in discovery order. */
    public static List<String> types() {
        return lookup().names();
    }

    /** Every provider found (a type claimed twice is left out). */
    public static List<DeviceProvider> providers() {
        return lookup().unique();
    }

    /**
     * The provider of a device type.
     *
     * @throws IllegalArgumentException if no provider offers the type (the message lists the types found),
     *     or two do (naming both)
     */
    public static DeviceProvider provider(String type) {
        Objects.requireNonNull(type, "type");
        DeviceProvider p = BY_TYPE.get(type);
        if (p != null) {
            return p;
        }
        try {
            p = lookup().require(type, HOW_TO_ADD);
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException("unknown device type '" + type + "': " + e.getMessage(), e);
        }
        BY_TYPE.putIfAbsent(type, p);
        return p;
    }

    /**
     * The device a context names, opened on first use.
     *
     * @throws IllegalArgumentException if the type is unknown, or the id is out of range
     * @throws IllegalStateException if the type is unavailable here (the message gives the reason)
     */
    public static Device device(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        DeviceProvider p = provider(ctx.deviceType());
        Availability a = p.probe();
        if (!a.available()) {
            throw new IllegalStateException("device " + ctx + " cannot be used: device type '" + ctx.deviceType()
                    + "' is unavailable: " + a.reason());
        }
        int count = p.deviceCount();
        if (ctx.deviceId() >= count) {
            throw new IllegalArgumentException("device " + ctx + " does not exist: " + (count == 0
                    ? "no device of type '" + ctx.deviceType() + "' found"
                    : count + " device(s) of type '" + ctx.deviceType() + "' found (ids 0.." + (count - 1) + ")"));
        }
        return p.device(ctx.deviceId());
    }
}
