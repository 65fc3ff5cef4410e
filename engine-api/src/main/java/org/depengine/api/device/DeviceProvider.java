package org.depengine.api.device;

/**
 * The plugin entry of one device type: found with {@link java.util.ServiceLoader}, one provider per
 * type name (two with one name are an error naming both).
 *
 * <p>Rules: the constructor touches no native code (every provider on the path is instantiated to
 * read its type); {@link #probe()} never throws, except the {@link IllegalArgumentException} of
 * {@link #isDisabled(String)} for an invalid setting, and caches its answer; the type can be switched
 * off with {@code -Ddepengine.device.<type>.disabled=true}, which {@link #probe()} must honour.
 * Implementations are thread-safe.
 */
public interface DeviceProvider {
    /** The device type this provider offers, as used in {@link org.depengine.api.Context}, e.g. {@code "opencl"}. */
    String type();

    /**
     * Whether the type can be used here, with the reason if not. Never throws; the first call may load
     * native libraries, later calls return the cached answer.
     */
    Availability probe();

    /**
     * How many devices of this type exist: 0 when unavailable. {@link Integer#MAX_VALUE} where any
     * id is valid (logical CPU devices).
     */
    int deviceCount();

    /**
     * The device of that id, opened on first use and cached: every call with one id returns the same
     * instance.
     *
     * @throws IllegalStateException if the type is unavailable (the message gives the reason)
     * @throws IllegalArgumentException if the id is not below {@link #deviceCount()}
     */
    Device device(int id);

    /** The system property that disables a device type. */
    static String disabledProperty(String type) {
        return "depengine.device." + type + ".disabled";
    }

    /**
     * Whether {@link #disabledProperty(String)} is set to {@code true} (any case) for the type; unset,
     * blank or {@code false} mean enabled.
     *
     * @throws IllegalArgumentException naming the property if it is set to anything else ({@code yes},
     *     {@code 1}): a provider's {@link #probe()} lets it through, so the mistake is not silently ignored
     */
    static boolean isDisabled(String type) {
        String key = disabledProperty(type);
        String raw = System.getProperty(key);
        if (raw == null || raw.isBlank()) {
            return false;
        }
        String s = raw.strip();
        if (s.equalsIgnoreCase("true")) {
            return true;
        }
        if (s.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("system property " + key + "='" + raw
                + "' is not a boolean; expected true or false");
    }
}
