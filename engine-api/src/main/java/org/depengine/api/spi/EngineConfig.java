package org.depengine.api.spi;

import java.util.Map;
import java.util.Objects;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * An immutable snapshot of an engine's settings: the {@code depengine.*} system properties at the
 * moment the engine is created (so a property is read once, at creation), or an explicit map, or
 * either with settings added through {@link #with}. Accessors validate, and their errors name the
 * setting and where it came from (a system property, or given to this class). An unknown
 * {@code depengine.*} key is logged once at WARN with the closest known one when an engine is
 * created with the configuration (see {@link KnownSettings}). Thread-safe (immutable).
 */
public final class EngineConfig {
    private static final String PREFIX = "depengine.";

    private final Map<String, String> values;
    private final Set<String> given; // keys given through of/with rather than read from system properties

    private EngineConfig(Map<String, String> values, Set<String> given) {
        this.values = values;
        this.given = given;
    }

    /**
     * The {@code depengine.*} system properties, read now.
     *
     * @return the configuration
     */
    public static EngineConfig fromSystemProperties() {
        Properties props = System.getProperties();
        Map<String, String> map = new TreeMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith(PREFIX)) {
                map.put(key, props.getProperty(key));
            }
        }
        return new EngineConfig(Map.copyOf(map), Set.of());
    }

    /**
     * Exactly the given settings (system properties are not consulted).
     *
     * @param values the settings, by key
     * @return the configuration
     */
    public static EngineConfig of(Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return new EngineConfig(copy, copy.keySet());
    }

    /**
     * This configuration with one setting added or replaced.
     *
     * @param key the setting's key, e.g. {@code "depengine.pooled.workers"}
     * @param value its value
     * @return a new configuration
     */
    public EngineConfig with(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Map<String, String> map = new TreeMap<>(values);
        map.put(key, value);
        Set<String> keys = new java.util.HashSet<>(given);
        keys.add(key);
        return new EngineConfig(Map.copyOf(map), Set.copyOf(keys));
    }

    /**
     * The setting as errors name it, with where it came from: {@code system property KEY} or
     * {@code setting KEY (given to EngineConfig)}.
     *
     * @param key the setting's key, e.g. {@code "depengine.pooled.workers"}
     * @return the description
     */
    public String describe(String key) {
        return given.contains(key) ? "setting " + key + " (given to EngineConfig)" : "system property " + key;
    }

    /**
     * Logs one WARN for each unknown {@code depengine.*} key (once per key per JVM), naming it, where
     * it came from and the closest known key; engines call it when created. Returns the warnings logged.
     *
     * @return the warnings logged by this call (none for a key warned about before)
     */
    public List<String> warnUnknownKeys() {
        return KnownSettings.warnUnknown(this);
    }

    /**
     * The raw value, or null if not set.
     *
     * @param key the setting's key, e.g. {@code "depengine.pooled.workers"}
     * @return the raw value, or null if not set
     */
    public String get(String key) {
        return values.get(key);
    }

    /**
     * All settings, unmodifiable.
     *
     * @return all settings, unmodifiable
     */
    public Map<String, String> asMap() {
        return values;
    }

    /**
     * An integer setting.
     *
     * @param key the setting's key, e.g. {@code "depengine.pooled.workers"}
     * @param defaultValue the value when the setting is absent
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @return the value, or {@code defaultValue} if not set
     * @throws IllegalArgumentException naming the property if the value is not an integer in [min, max]
     */
    public int getInt(String key, int defaultValue, int min, int max) {
        String raw = values.get(key);
        if (raw == null) {
            return defaultValue;
        }
        int v;
        try {
            v = Integer.parseInt(raw.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(describe(key) + "='" + raw
                    + "' is not an integer; expected a whole number in [" + min + ", " + max + "]", e);
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(describe(key) + "=" + v + " is out of range; expected ["
                    + min + ", " + max + "]");
        }
        return v;
    }

    /**
     * A boolean setting ({@code true} or {@code false}, any case).
     *
     * @param key the setting's key, e.g. {@code "depengine.pooled.workers"}
     * @param defaultValue the value when the setting is absent
     * @return the value, or {@code defaultValue} if not set
     * @throws IllegalArgumentException naming the property for any other value
     */
    public boolean getBoolean(String key, boolean defaultValue) {
        String raw = values.get(key);
        if (raw == null) {
            return defaultValue;
        }
        Boolean b = strictBoolean(raw);
        if (b == null) {
            throw new IllegalArgumentException(describe(key) + "='" + raw + "' is not a boolean; expected true or false");
        }
        return b;
    }

    /**
     * A true/false system property read now, with the same strict parsing as {@link #getBoolean}: for
     * the switches read outside an engine's configuration (a device type's off switch, keeping devices
     * open, the profiler's autostart).
     *
     * @param key the property, e.g. {@code "depengine.device.keepOpen"}
     * @param defaultValue the value when the property is not set
     * @param whatTrueDoes what {@code true} does, for the error message, e.g. {@code "keep devices open"}
     * @return the value, or {@code defaultValue} if not set
     * @throws IllegalArgumentException naming the property and its value for anything but {@code true}
     *     or {@code false} (any case, surrounding blanks ignored)
     */
    public static boolean systemBoolean(String key, boolean defaultValue, String whatTrueDoes) {
        String raw = System.getProperty(key);
        if (raw == null) {
            return defaultValue;
        }
        Boolean b = strictBoolean(raw);
        if (b == null) {
            throw new IllegalArgumentException("-D" + key + "=" + raw + " is not a valid value: use true (" + whatTrueDoes
                    + ") or false");
        }
        return b;
    }

    /** The one parser of depengine's switches: {@code true} or {@code false}, any case, blanks around ignored; else null. */
    private static Boolean strictBoolean(String raw) {
        String s = raw.strip();
        if (s.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        return null;
    }

    @Override
    public String toString() {
        return "EngineConfig" + values;
    }
}
