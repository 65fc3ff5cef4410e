package org.depengine.api.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * Raw setting values with where each came from, read through {@link Setting}s: the one reader of
 * {@code depengine.*} settings. A value is parsed when it is read, so an error names the setting, the
 * value and its source (see {@link Setting}).
 *
 * <p>Immutable and thread-safe.
 */
public final class Settings {
    private static final String PREFIX = "depengine.";
    private static final String SYSTEM_PROPERTY = "system property";

    private final Map<String, String> values;
    private final Map<String, String> sources; // key -> where its value came from; absent: a system property

    private Settings(Map<String, String> values, Map<String, String> sources) {
        this.values = values;
        this.sources = sources;
    }

    /**
     * The {@code depengine.*} system properties, read now.
     *
     * @return the settings
     */
    public static Settings fromSystemProperties() {
        Properties props = System.getProperties();
        Map<String, String> map = new TreeMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith(PREFIX)) {
                map.put(key, props.getProperty(key));
            }
        }
        return new Settings(Collections.unmodifiableMap(map), Map.of());
    }

    /**
     * Exactly the given values, all from one source.
     *
     * @param values the values, by full key
     * @param source where they came from, as errors should say it, e.g. {@code "given to EngineConfig"}
     * @return the settings
     */
    public static Settings of(Map<String, String> values, String source) {
        Objects.requireNonNull(source, "source");
        Map<String, String> copy = new TreeMap<>(values);
        Map<String, String> src = new HashMap<>();
        for (String k : copy.keySet()) {
            src.put(Objects.requireNonNull(k, "key"), source);
        }
        copy.values().forEach(v -> Objects.requireNonNull(v, "value"));
        return new Settings(Collections.unmodifiableMap(copy), Map.copyOf(src));
    }

    /**
     * These settings with one value added or replaced.
     *
     * @param key the full key
     * @param value the value
     * @param source where it came from, e.g. {@code "given to EngineConfig"}
     * @return new settings
     */
    public Settings with(String key, String value, String source) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(source, "source");
        Map<String, String> map = new TreeMap<>(values);
        map.put(key, value);
        Map<String, String> src = new HashMap<>(sources);
        src.put(key, source);
        return new Settings(Collections.unmodifiableMap(map), Map.copyOf(src));
    }

    /**
     * A setting's value, or its default when absent.
     *
     * @param <T> the value's type
     * @param setting the setting
     * @return the value, or {@link Setting#defaultValue()} (which may be null) when absent
     * @throws IllegalArgumentException in {@link Setting}'s one form, if the value is invalid
     */
    public <T> T get(Setting<T> setting) {
        String raw = values.get(setting.key());
        return raw == null ? setting.defaultValue() : setting.parse(raw, describe(setting.key()));
    }

    /**
     * A setting's value, if present.
     *
     * @param <T> the value's type
     * @param setting the setting
     * @return the value, or empty when absent
     * @throws IllegalArgumentException in {@link Setting}'s one form, if the value is invalid
     */
    public <T> Optional<T> find(Setting<T> setting) {
        String raw = values.get(setting.key());
        return raw == null ? Optional.empty() : Optional.of(setting.parse(raw, describe(setting.key())));
    }

    /**
     * The raw value, or null if absent.
     *
     * @param key the full key
     * @return the raw value
     */
    public String raw(String key) {
        return values.get(key);
    }

    /**
     * Every value by key, unmodifiable.
     *
     * @return the values
     */
    public Map<String, String> asMap() {
        return values;
    }

    /**
     * A key as errors name it, with where its value came from: {@code system property KEY}, or
     * {@code setting KEY (SOURCE)} for a value given otherwise.
     *
     * @param key the full key
     * @return the description
     */
    public String describe(String key) {
        String source = sources.get(key);
        return source == null ? SYSTEM_PROPERTY + " " + key : "setting " + key + " (" + source + ")";
    }

    /**
     * Every setting declared by a {@link SettingsCatalog} visible to this module's service loader, sorted
     * by key. Found once and cached.
     *
     * @return the settings
     * @throws IllegalStateException if two catalogs declare one key, naming both
     */
    public static List<Setting<?>> catalog() {
        return Catalog.ALL.settings;
    }

    /**
     * The namespaces (key prefixes) that the catalogs' modules validate themselves.
     *
     * @return the prefixes
     */
    public static List<String> namespaces() {
        return Catalog.ALL.namespaces;
    }

    /**
     * The declared setting that {@code key} names, if any.
     *
     * @param key a full key
     * @return the setting, or empty
     */
    public static Optional<Setting<?>> declared(String key) {
        for (Setting<?> s : catalog()) {
            if (s.matches(key)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "Settings" + values;
    }

    /** The catalogs, loaded once (the holder idiom keeps the loading lazy and thread-safe). */
    private static final class Catalog {
        static final Catalog ALL = load();

        final List<Setting<?>> settings;
        final List<String> namespaces;

        private Catalog(List<Setting<?>> settings, List<String> namespaces) {
            this.settings = settings;
            this.namespaces = namespaces;
        }

        private static Catalog load() {
            Map<String, String> owner = new HashMap<>();
            List<Setting<?>> settings = new ArrayList<>();
            List<String> namespaces = new ArrayList<>();
            Set<Class<?>> seen = new java.util.HashSet<>();
            ServiceLoader<SettingsCatalog> loader = ServiceLoader.load(SettingsCatalog.class);
            for (ServiceLoader.Provider<SettingsCatalog> p : loader.stream().toList()) {
                if (!seen.add(p.type())) {
                    continue; // the same class found on the module path and the class path
                }
                SettingsCatalog c;
                try {
                    c = p.get();
                } catch (ServiceConfigurationError e) {
                    throw new IllegalStateException("settings catalog " + p.type().getName() + " failed to load: " + e, e);
                }
                for (Setting<?> s : c.settings()) {
                    String before = owner.putIfAbsent(s.key(), p.type().getName());
                    if (before != null) {
                        throw new IllegalStateException("setting " + s.key() + " is declared twice, by " + before
                                + " and " + p.type().getName() + ": declare it once, in the module that reads it");
                    }
                    settings.add(s);
                }
                namespaces.addAll(c.namespaces());
            }
            settings.sort(Comparator.comparing(Setting::key));
            return new Catalog(List.copyOf(settings), List.copyOf(namespaces));
        }
    }
}
