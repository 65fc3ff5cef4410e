package org.depengine.api.device;

import org.depengine.api.spi.EngineConfig;

/**
 * The plugin entry of one device type: found with {@link java.util.ServiceLoader}, one provider per
 * type name (two with one name are an error naming both).
 *
 * <p>Rules: the constructor touches no native code (every provider on the path is instantiated to
 * read its type); {@link #probe()} never throws and caches its answer. The switch
 * {@code -Ddepengine.device.<type>.disabled=true} is honoured by {@link Devices}, which asks no provider
 * of a disabled type anything beyond {@link #type()}; {@link AbstractDeviceProvider} honours it in
 * {@link #probe()} too, for callers that ask the provider directly. Implementations are thread-safe;
 * most extend {@link AbstractDeviceProvider}, which does all of this.
 *
 * <p>Ownership: a provider owns the devices it opens. An engine acquires a device through
 * {@link Devices#acquire} and releases it when it closes; when the last engine using the type has
 * released it, {@link Devices} calls {@link #close()}, and the next engine's request opens the devices
 * again (see {@link Devices} for the exceptions: {@link Devices#device}, and
 * {@code -Ddepengine.device.keepOpen=true}).
 */
public interface DeviceProvider {
    /**
     * The device type this provider offers, as used in {@link org.depengine.api.Context}, e.g. {@code "opencl"}.
     *
     * @return the device type
     */
    String type();

    /**
     * Whether the type can be used here, with the reason if not. The first call may load native
     * libraries, later calls return the cached answer. Never throws, except where
     * {@link #isDisabled(String)} does for an invalid value of the switch.
     *
     * @return whether the type can be used here, with the reason if not
     */
    Availability probe();

    /**
     * How many devices of this type exist: 0 when unavailable. {@link Integer#MAX_VALUE} where any
     * id is valid (logical CPU devices).
     *
     * @return the number of devices
     */
    int deviceCount();

    /**
     * The device of that id, opened on first use and cached: every call with one id returns the same
     * instance until {@link #close()}; a call after it opens the device again.
     *
     * @param id the device id, from 0
     * @return the device
     * @throws IllegalStateException if the type is unavailable (the message gives the reason)
     * @throws IllegalArgumentException if the id is not below {@link #deviceCount()}
     */
    Device device(int id);

    /**
     * Closes every device this provider has opened ({@link Device#close()}); a later {@link #device(int)}
     * opens a fresh one. {@link Devices} calls it when the last engine using this type has released it;
     * an application may too, once nothing uses a device of this provider, never while one is in use.
     * The streams, buffers and kernels of a closed device must fail clearly when used afterwards.
     * Idempotent; the default does nothing (for providers whose devices hold nothing to free).
     */
    default void close() {
    }

    /**
     * The system property that disables a device type.
     *
     * @param type the device type, e.g. {@code "opencl"}
     * @return the system property that disables a device type
     */
    static String disabledProperty(String type) {
        return "depengine.device." + type + ".disabled";
    }

    /**
     * Whether {@link #disabledProperty(String)} is set to {@code true} for the type. Only {@code true} and
     * {@code false} (any case, surrounding blanks ignored) are accepted; unset means false.
     *
     * @param type the device type, e.g. {@code "opencl"}
     * @return whether the type is disabled
     * @throws IllegalArgumentException if the property has any other value (the message names it)
     */
    static boolean isDisabled(String type) {
        return EngineConfig.system(org.depengine.api.internal.ApiSettings.disabled(type));
    }

    /**
     * The availability of a type switched off by {@link #disabledProperty(String)}.
     *
     * @param type the device type, e.g. {@code "opencl"}
     * @return the availability of a type switched off by {@link #disabledProperty(String)}
     */
    static Availability disabledAvailability(String type) {
        return Availability.no("disabled by -D" + disabledProperty(type) + "=true");
    }
}
