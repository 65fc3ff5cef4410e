package org.depengine.api.spi;

import java.util.Map;
import java.util.Objects;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.depengine.api.settings.Setting;

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
        return get(Setting.ofInt(key, defaultValue, min, max, key));
    }

    /**
     * A declared setting's value (see {@link org.depengine.api.settings}): the one parser, whose errors
     * name the setting, its value and where it came from.
     *
     * @param <T> the value's type
     * @param setting the setting
     * @return the value, or the setting's default if not set
     * @throws IllegalArgumentException naming the setting and its source if the value is invalid
     */
    public <T> T get(Setting<T> setting) {
        String raw = values.get(setting.key());
        return raw == null ? setting.defaultValue() : setting.parse(raw, describe(setting.key()));
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
        return get(Setting.ofBoolean(key, defaultValue, key));
    }

    /**
     * A system property read now, through the one parser: for the switches read outside an engine's
     * configuration (a device type's off switch, keeping devices open, the profiler's autostart).
     *
     * @param <T> the value's type
     * @param setting the setting
     * @return the value, or the setting's default if not set
     * @throws IllegalArgumentException naming the property and its value if the value is invalid
     */
    public static <T> T system(Setting<T> setting) {
        String raw = System.getProperty(setting.key());
        return raw == null ? setting.defaultValue() : setting.parse(raw, "system property " + setting.key());
    }

    @Override
    public String toString() {
        return "EngineConfig" + values;
    }
}
