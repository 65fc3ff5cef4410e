package org.depengine.api.device;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.internal.ProviderLookup;
import org.slf4j.LoggerFactory;

/**
 * Looks up device providers by type, through {@link java.util.ServiceLoader}. The providers are found
 * once, on first use, and cached for the life of the class loader. Thread-safe.
 *
 * <p>The switch {@code -Ddepengine.device.<type>.disabled=true} is checked here, before any provider of
 * the type is asked for a device, so every provider, a plugin's too, honours it.
 *
 * <p>Ownership: engines get their devices with {@link #acquire(Context)} and give them back with
 * {@link #release(Context)} when they close; when the last engine using a type has released it, the
 * type's provider is closed ({@link DeviceProvider#close()}), which closes its devices. A device got with
 * {@link #device(Context)} belongs to no engine: the caller may keep it for as long as it likes, so its
 * provider is never closed by the engines after such a call.
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
     * Whether devices of the type can be used: disabled by the switch, or what the provider's
     * {@link DeviceProvider#probe()} says.
     *
     * @throws IllegalArgumentException if the type is unknown, or the switch has an invalid value
     */
    public static Availability availability(String type) {
        DeviceProvider p = provider(type);
        return DeviceProvider.isDisabled(type) ? DeviceProvider.disabledAvailability(type) : p.probe();
    }

    /**
     * The device a context names, opened on first use. The caller may keep it for the life of the JVM:
     * the engines never close its provider after this call (see the class comment).
     *
     * @throws IllegalArgumentException if the type is unknown, the id is out of range, or the switch has an
     *     invalid value
     * @throws IllegalStateException if the type is unavailable or disabled here (the message gives the reason)
     */
    public static Device device(Context ctx) {
        Device d = open(ctx);
        synchronized (USERS) {
            USERS.computeIfAbsent(ctx.deviceType(), t -> new Users()).unmanaged = true;
        }
        return d;
    }

    /**
     * As {@link #device(Context)}, for an engine: the engine holds the device's type until it calls
     * {@link #release(Context)} once for this call.
     *
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
     * Gives back a device got with {@link #acquire(Context)}. When no engine holds the type any more, and
     * no caller of {@link #device(Context)} may hold one of its devices, the provider is closed; a failure
     * to close is logged, not thrown.
     *
     * @throws IllegalStateException if the type is not held (a release without an acquire)
     */
    public static void release(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        DeviceProvider toClose = null;
        synchronized (USERS) {
            Users u = USERS.get(ctx.deviceType());
            if (u == null || u.engines == 0) {
                throw new IllegalStateException("device type '" + ctx.deviceType() + "' released more often than "
                        + "acquired (release " + ctx + " once per acquire)");
            }
            if (--u.engines == 0 && !u.unmanaged) {
                toClose = provider(ctx.deviceType());
            }
            if (toClose != null) {
                try {
                    toClose.close();
                } catch (RuntimeException e) {
                    LoggerFactory.getLogger(Devices.class).warn("closing the devices of type '{}' failed",
                            ctx.deviceType(), e);
                }
            }
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

    /** Who holds a device type: engines (counted) and callers of {@link #device(Context)} (for good). */
    private static final class Users {
        int engines;
        boolean unmanaged;
    }
}
