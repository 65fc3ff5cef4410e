package org.depengine.kvstore;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.Settings;
import org.depengine.api.spi.KnownSettings;
import org.depengine.kvstore.spi.KVStoreSettingsCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings a store is opened with: an immutable value, made with {@link #builder()} or read from the
 * {@code depengine.kvstore.*} system properties ({@link #fromSystemProperties()}). Each setting has a
 * short name ({@code "rank"}) and a key ({@code depengine.kvstore.rank}).
 *
 * <p>The settings every store reads are declared in {@link KVStoreSettingsCatalog} and have getters here:
 * {@value #RANK}, {@value #NUM_WORKERS}, {@value #TIMEOUT_MS} and {@value #RESUME}. A store type's own
 * settings (a cluster's member list, say) are declared as {@link Setting}s in the
 * {@link org.depengine.api.settings.SettingsCatalog} of the module that reads them, given here by name
 * ({@link Builder#set}) and read by that module with {@link #get(Setting)}: one parser for every value.
 *
 * <p>Every value whose setting some catalog on the class or module path declares is checked when the
 * settings are built: an invalid one is an {@link IllegalArgumentException} in the one form of
 * {@link Setting}, naming the key, the value and where it came from
 * ({@code setting depengine.kvstore.port (set on KVStoreSettings.Builder)='x' is invalid: expected ...}).
 * A {@code depengine.kvstore.*} system property that no catalog declares is logged once as a warning
 * naming the closest known key, and kept.
 *
 * <p>Thread-safe (immutable); the builder is not.
 */
public final class KVStoreSettings {
    private static final Logger LOG = LoggerFactory.getLogger(KVStoreSettings.class);
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    private static final String BUILDER = "set on KVStoreSettings.Builder";

    /** Setting name: this worker's rank. */
    public static final String RANK = "rank";
    /** Setting name: the number of workers. */
    public static final String NUM_WORKERS = "numWorkers";
    /** Setting name: the bound on a remote call, in milliseconds. */
    public static final String TIMEOUT_MS = "timeoutMs";
    /** Setting name: the checkpoint file a new store continues from ({@link KVStore#checkpoint}). */
    public static final String RESUME = "resume";

    /** Default {@code timeoutMs}: 5 minutes, a last resort (a slow worker is waited for). */
    public static final long DEFAULT_TIMEOUT_MS = 300_000;

    private final Settings values;

    private KVStoreSettings(Settings values) {
        this.values = values;
    }

    /** A builder with every setting at its default. */
    public static Builder builder() {
        return new Builder(Settings.of(Map.of(), BUILDER));
    }

    /** Every setting at its default (a single worker, rank 0). */
    public static KVStoreSettings defaults() {
        return builder().build();
    }

    /**
     * The settings of the {@code depengine.kvstore.*} system properties, read now; settings not given
     * keep their defaults. Keys no catalog declares are warned about once each (see the class comment).
     *
     * @throws IllegalArgumentException if a value is invalid: the message names the property, its value
     *     and that it came from a system property
     */
    public static KVStoreSettings fromSystemProperties() {
        Map<String, String> found = new TreeMap<>();
        Settings.fromSystemProperties().asMap().forEach((key, value) -> {
            if (key.startsWith(KVStore.PROPERTY_PREFIX)) {
                found.put(key, value);
                if (!KnownSettings.isKnown(key) && WARNED.add(key)) {
                    LOG.warn("unknown system property {}: no store reads it; did you mean {}?", key,
                            KnownSettings.closest(key));
                }
            }
        });
        return new Builder(Settings.of(found, "system property")).build();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(values);
    }

    /** This worker's rank, in [0, numWorkers). */
    public int rank() {
        return get(KVStoreSettingsCatalog.RANK);
    }

    /** The number of workers, ≥ 1. */
    public int numWorkers() {
        return get(KVStoreSettingsCatalog.NUM_WORKERS);
    }

    /** The bound on one remote call, in milliseconds, in [1, {@link Integer#MAX_VALUE}]. */
    public long timeoutMs() {
        return get(KVStoreSettingsCatalog.TIMEOUT).toMillis();
    }

    /** The checkpoint to continue from ({@code resume}), if set. */
    public Optional<Path> resume() {
        return find(KVStoreSettingsCatalog.RESUME);
    }

    /**
     * A declared setting's value through the one parser, or its default when not given.
     *
     * @throws IllegalArgumentException in {@link Setting}'s one form if the value is invalid
     */
    public <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /**
     * A declared setting's value through the one parser, if given.
     *
     * @throws IllegalArgumentException in {@link Setting}'s one form if the value is invalid
     */
    public <T> Optional<T> find(Setting<T> setting) {
        return values.find(setting);
    }

    /**
     * Any setting by its short name ({@code "rank"}) or key, as the text given; empty when not given.
     *
     * @throws NullPointerException if {@code name} is null
     */
    public Optional<String> get(String name) {
        Objects.requireNonNull(name, "name");
        return Optional.ofNullable(values.raw(key(name)));
    }

    /**
     * A setting as errors name it, in the one form of {@link Setting}: {@code system property KEY}, or
     * {@code setting KEY (where it came from)} for a value given to the builder; for a store's own checks
     * of a value the parser accepted (an address no interface has), so that they read as the parser's do.
     *
     * @throws NullPointerException if {@code setting} is null
     */
    public String describe(Setting<?> setting) {
        return values.describe(setting.key());
    }

    /** Every setting given, by key, as text (defaults are not listed), unmodifiable. */
    public Map<String, String> asMap() {
        return values.asMap();
    }

    /** The key of a short name ({@code rank} → {@code depengine.kvstore.rank}); a key stays as it is. */
    public static String key(String name) {
        return name.startsWith(KVStore.PROPERTY_PREFIX) ? name : KVStore.PROPERTY_PREFIX + name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KVStoreSettings s && s.asMap().equals(asMap());
    }

    @Override
    public int hashCode() {
        return asMap().hashCode();
    }

    @Override
    public String toString() {
        return "KVStoreSettings" + asMap();
    }

    /**
     * Builds {@link KVStoreSettings}. Each typed setter validates its value at once; {@link #set} takes
     * any setting as text, and {@link #build()} checks every value a catalog declares and the settings
     * together. Errors are {@link IllegalArgumentException}s naming the key and where the value came
     * from. Not thread-safe.
     */
    public static final class Builder {
        private Settings values;

        private Builder(Settings values) {
            this.values = values;
        }

        /** This worker's rank, ≥ 0 (and below numWorkers, checked by {@link #build()}). */
        public Builder rank(int rank) {
            return put(KVStoreSettingsCatalog.RANK, Integer.toString(rank));
        }

        /** The number of workers, ≥ 1. */
        public Builder numWorkers(int numWorkers) {
            return put(KVStoreSettingsCatalog.NUM_WORKERS, Integer.toString(numWorkers));
        }

        /** The bound on one remote call, in milliseconds, in [1, {@link Integer#MAX_VALUE}]. */
        public Builder timeoutMs(long timeoutMs) {
            return put(KVStoreSettingsCatalog.TIMEOUT, Long.toString(timeoutMs));
        }

        /**
         * Any setting by short name ({@code "members"}) or key, as text: a declared one is checked at once,
         * others at {@link #build()} (once their module's catalog is loaded) or by the store that reads them.
         *
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if the name is blank, or a declared setting's value is invalid
         */
        public Builder set(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (name.isBlank() || name.equals(KVStore.PROPERTY_PREFIX)) {
                throw new IllegalArgumentException("a kvstore setting name must not be blank (" + BUILDER + ")");
            }
            values = values.with(key(name), value, BUILDER);
            Settings.declared(key(name)).ifPresent(s -> values.get(s));
            return this;
        }

        private Builder put(Setting<?> setting, String value) {
            values = values.with(setting.key(), value, BUILDER);
            values.get(setting);
            return this;
        }

        /**
         * The settings.
         *
         * @throws IllegalArgumentException if a declared setting's value is invalid, or {@code rank} is not
         *     below {@code numWorkers} (naming both and where each came from)
         */
        public KVStoreSettings build() {
            for (String key : values.asMap().keySet()) {
                Settings.declared(key).ifPresent(s -> values.get(s));
            }
            int rank = values.get(KVStoreSettingsCatalog.RANK);
            int workers = values.get(KVStoreSettingsCatalog.NUM_WORKERS);
            if (rank >= workers) {
                throw new IllegalArgumentException(where(KVStoreSettingsCatalog.RANK) + "=" + rank + " must be below "
                        + where(KVStoreSettingsCatalog.NUM_WORKERS) + "=" + workers + ": ranks run from 0 to numWorkers - 1");
            }
            return new KVStoreSettings(values);
        }

        private String where(Setting<?> s) {
            return values.raw(s.key()) == null ? s.key() + " (default)" : values.describe(s.key());
        }
    }

}
