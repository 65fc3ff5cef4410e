package org.depengine.api.device;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.internal.ProviderLookup;

/**
 * Looks up device providers by type, through {@link java.util.ServiceLoader}. The providers are found
 * once, on first use, and cached for the life of the class loader. Thread-safe.
 *
 * <p>The switch {@code -Ddepengine.device.<type>.disabled=true} is checked here, before any provider of
 * the type is asked for a device, so every provider, a plugin's too, honours it.
 *
 * <p>Ownership: a provider owns the devices it opens, and they stay open for the life of the JVM
 * unless the application closes the provider ({@link DeviceProvider#close()}) once nothing uses its
 * devices. Engines get their devices with {@link #acquire(Context)} and give them back with
 * {@link #release(Context)} when they close; the count only checks that they pair up. Engines do not
 * close devices when the last of them releases a type: closing a native context and opening a new one
 * while the garbage collector may still release objects of the old one (pinned memory, buffers,
 * events) is not known to be safe on every driver (an OpenCL test JVM crashed once in native code while
 * engines did so), and reopening costs a kernel rebuild per engine.
 */
public final class Devices {
    private static final String HOW_TO_ADD = "Add the device module's jar (device-cpu, device-opencl, device-cuda, or a "
            + "plugin) to the class or module path; a plugin implements org.depengine.api.device.DeviceProvider and "
            + "declares it with 'provides' in module-info and in META-INF/services.";
    private static volatile ProviderLookup<DeviceProvider> lookup;
    private static final ConcurrentHashMap<String, DeviceProvider> BY_TYPE = new ConcurrentHashMap<>();
    /** Holders by device type. Guarded by itself; closing a provider happens under it too. */
    private static final Map<String, Users> USERS = new HashMap<>();

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

    /**
     * The device types found, in discovery order.
     *
     * @return the device types found, in discovery order
     */
    public static List<String> types() {
        return lookup().names();
    }

    /**
     * Every provider found (a type claimed twice is left out).
     *
     * @return every provider found (a type claimed twice is left out)
     */
    public static List<DeviceProvider> providers() {
        return lookup().unique();
    }

    /**
     * The provider of a device type.
     *
     * @param type the device type, e.g. {@code "opencl"}
     * @return the provider
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
     * Whether devices of the type can be used: disabled by the switch, or what the provider's
     * {@link DeviceProvider#probe()} says.
     *
     * @param type the device type, e.g. {@code "opencl"}
     * @return the availability
     * @throws IllegalArgumentException if the type is unknown, or the switch has an invalid value
     */
    public static Availability availability(String type) {
        DeviceProvider p = provider(type);
        return DeviceProvider.isDisabled(type) ? DeviceProvider.disabledAvailability(type) : p.probe();
    }

    /**
     * The device a context names, opened on first use. It stays open for the life of the JVM unless the
     * application closes its provider (see the class comment).
     *
     * @param ctx the device context
     * @return the device
     * @throws IllegalArgumentException if the type is unknown, the id is out of range, or the switch has an
     *     invalid value
     * @throws IllegalStateException if the type is unavailable or disabled here (the message gives the reason)
     */
    public static Device device(Context ctx) {
        return open(ctx);
    }

    /**
     * As {@link #device(Context)}, for an engine: the engine holds the device's type until it calls
     * {@link #release(Context)} once for this call.
     *
     * @param ctx the device context
     * @return the device
     * @throws IllegalArgumentException if the type is unknown or the id is out of range
     * @throws IllegalStateException if the type is unavailable or disabled here
     */
    public static Device acquire(Context ctx) {
        synchronized (USERS) {
            Device d = open(ctx);
            USERS.computeIfAbsent(ctx.deviceType(), t -> new Users()).engines++;
            return d;
        }
    }

    /**
     * Gives back a device got with {@link #acquire(Context)}. The device stays open (see the class
     * documentation for who closes it).
     *
     * @param ctx the device context
     * @throws IllegalStateException if the type is not held (a release without an acquire)
     */
    public static void release(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        synchronized (USERS) {
            Users u = USERS.get(ctx.deviceType());
            if (u == null || u.engines == 0) {
                throw new IllegalStateException("device type '" + ctx.deviceType() + "' released more often than "
                        + "acquired (release " + ctx + " once per acquire)");
            }
            u.engines--;
        }
    }

    private static Device open(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        DeviceProvider p = provider(ctx.deviceType());
        Availability a = availability(ctx.deviceType());
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

    /** How many engines hold a device type. */
    private static final class Users {
        int engines;
    }
}
