package org.depengine.api.device;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.internal.ProviderLookup;
import org.depengine.api.spi.EngineConfig;
import org.slf4j.LoggerFactory;

/**
 * Looks up device providers by type, through {@link java.util.ServiceLoader}, and keeps count of the
 * engines that use each type. The providers are found once, on first use, and cached for the life of the
 * class loader. Thread-safe.
 *
 * <p>The switch {@code -Ddepengine.device.<type>.disabled=true} is checked here, before any provider of
 * the type is asked for a device, so every provider, a plugin's too, honours it.
 *
 * <p><b>Who owns what.</b>
 * <ul>
 *   <li>A provider opens its devices (lazily, on the first request for an id) and owns them; only
 *   {@link DeviceProvider#close()} closes them, and a later request opens them afresh.</li>
 *   <li>Engines take devices with {@link #acquire(Context)} and give them back with
 *   {@link #release(Context)} when they close ({@link org.depengine.api.Engine#close()}). When the last
 *   engine using a device type releases it, this class closes the type's provider, which closes the
 *   devices it opened (native contexts, queues, buffers, compiled kernels, threads); the next engine
 *   reopens them. Acquiring and closing are serialised per type: a device is never closed while an
 *   engine holds it, and an engine never gets a device that is being closed.</li>
 *   <li>Streams, buffers, events and kernels belong to the device that made them. After the device has
 *   closed they are freed; using one is an {@link IllegalStateException} that names the device and what
 *   to do (the devices of this project; a plugin should do the same), never a use of freed native
 *   memory. A {@link DeviceArray} over such a buffer fails the same way in the op that touches it.</li>
 *   <li>Code outside an engine that uses a device for a while (allocating buffers before the engine is
 *   created, reading them after it has closed) holds the type the same way: {@link #acquire(Context)},
 *   then {@link #release(Context)} when done.</li>
 *   <li>{@link #device(Context)} takes a device for the life of the JVM: the engines never close that
 *   type afterwards (its provider may still be closed by the application).</li>
 *   <li>{@code -D}{@value #KEEP_OPEN_PROPERTY}{@code =true} keeps every device open after its last engine
 *   has closed (reopening costs a context and a kernel build per engine cycle, which an application that
 *   creates and closes many short-lived engines may not want). The application may then close a
 *   provider itself, once nothing uses its devices.</li>
 * </ul>
 */
public final class Devices {
    /** The system property that keeps devices open when the last engine using them closes. */
    public static final String KEEP_OPEN_PROPERTY = "depengine.device.keepOpen";

    private static final String HOW_TO_ADD = "Add the device module's jar (device-cpu, device-opencl, device-cuda, or a "
            + "plugin) to the class or module path; a plugin implements org.depengine.api.device.DeviceProvider and "
            + "declares it with 'provides' in module-info and in META-INF/services.";
    private static volatile ProviderLookup<DeviceProvider> lookup;
    private static final ConcurrentHashMap<String, DeviceProvider> BY_TYPE = new ConcurrentHashMap<>();
    /** Holders by device type; each {@link Users} is the lock of its type's acquiring and closing. */
    private static final ConcurrentHashMap<String, Users> USERS = new ConcurrentHashMap<>();

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
     * The device a context names, opened on first use, for the life of the JVM: the engines never close
     * devices of this type after this call (see the class comment). Code that uses a device for a
     * bounded time should pair {@link #acquire(Context)} and {@link #release(Context)} instead.
     *
     * @param ctx the device context
     * @return the device
     * @throws IllegalArgumentException if the type is unknown, the id is out of range, or the switch has an
     *     invalid value
     * @throws IllegalStateException if the type is unavailable or disabled here (the message gives the reason)
     */
    public static Device device(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        Users u = users(ctx.deviceType());
        synchronized (u) {
            Device d = open(ctx);
            u.pinned = true;
            return d;
        }
    }

    /**
     * As {@link #device(Context)}, for an engine (or other code using the device for a while): the
     * caller holds the device's type until it calls {@link #release(Context)} once for this call, and the
     * device stays open until then. Waits while the type is being closed, then gets a freshly opened
     * device.
     *
     * @param ctx the device context
     * @return the device
     * @throws IllegalArgumentException if the type is unknown, the id is out of range, or
     *     {@value #KEEP_OPEN_PROPERTY} has a value other than true or false
     * @throws IllegalStateException if the type is unavailable or disabled here
     */
    public static Device acquire(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        keepOpen(); // an invalid value fails here, at engine creation, not in close()
        Users u = users(ctx.deviceType());
        synchronized (u) {
            Device d = open(ctx);
            u.holders++;
            return d;
        }
    }

    /**
     * Gives back a device got with {@link #acquire(Context)}. When nothing holds its type any more, the
     * type's provider is closed ({@link DeviceProvider#close()}: its devices, and their streams and
     * buffers, are freed), unless {@link #device(Context)} took one of them for good or
     * {@value #KEEP_OPEN_PROPERTY} is true. The close runs on the calling thread, under the type's lock
     * (an {@link #acquire} of the type waits for it); a failure to close is logged, not thrown.
     *
     * @param ctx the device context
     * @throws IllegalStateException if the type is not held (a release without an acquire)
     */
    public static void release(Context ctx) {
        Objects.requireNonNull(ctx, "ctx");
        Users u = users(ctx.deviceType());
        synchronized (u) {
            if (u.holders == 0) {
                throw new IllegalStateException("device type '" + ctx.deviceType() + "' released more often than "
                        + "acquired (release " + ctx + " once per acquire)");
            }
            if (--u.holders > 0 || u.pinned || keepOpenQuietly()) {
                return;
            }
            DeviceProvider p = provider(ctx.deviceType());
            try {
                p.close();
                LoggerFactory.getLogger(Devices.class).debug("closed the devices of type '{}': no engine uses them",
                        ctx.deviceType());
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(Devices.class).warn("closing the devices of type '{}' failed",
                        ctx.deviceType(), e);
            }
        }
    }

    /**
     * Whether {@value #KEEP_OPEN_PROPERTY} is true. Only true and false (any case, blanks ignored) are
     * accepted; unset means false.
     *
     * @throws IllegalArgumentException if the property has any other value (the message names it)
     */
    static boolean keepOpen() {
        return EngineConfig.system(org.depengine.api.internal.ApiSettings.KEEP_OPEN);
    }

    private static boolean keepOpenQuietly() {
        try {
            return keepOpen();
        } catch (IllegalArgumentException e) {
            // Set to an invalid value after the engines were created: keeping is the safe reading.
            LoggerFactory.getLogger(Devices.class).warn("{}; devices are kept open", e.getMessage());
            return true;
        }
    }

    private static Users users(String type) {
        return USERS.computeIfAbsent(type, t -> new Users());
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

    /** Who holds a device type: engines and other acquirers (counted), callers of {@link #device} (for good). */
    private static final class Users {
        int holders;
        boolean pinned;
    }
}
