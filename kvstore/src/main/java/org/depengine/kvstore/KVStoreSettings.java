package org.depengine.kvstore;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.spi.KnownSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings a store is opened with: an immutable value, made with {@link #builder()} or read from the
 * {@code depengine.kvstore.*} system properties ({@link #fromSystemProperties()}). Each setting has a
 * short name ({@code "rank"}) and a property name ({@code depengine.kvstore.rank}).
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>name</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code members}</td><td>empty</td><td>comma-separated {@code host:port} addresses of the
 *   cluster's members (distributed stores); empty lets the implementation use its loopback default</td></tr>
 *   <tr><td>{@code rank}</td><td>0</td><td>this worker's rank, in [0, numWorkers)</td></tr>
 *   <tr><td>{@code numWorkers}</td><td>1</td><td>the number of workers, ≥ 1</td></tr>
 *   <tr><td>{@code timeoutMs}</td><td>{@value #DEFAULT_TIMEOUT_MS}</td><td>a last resort: the longest
 *   one remote call waits for an answer, and a pull for progress on its key, before its op fails (a
 *   lost worker fails the calls that need it sooner); minutes by default, so that a slow worker (a GC
 *   pause, an evaluation, a checkpoint) is waited for, ≥ 1</td></tr>
 *   <tr><td>{@code mode}</td><td>{@code embedded}</td><td>{@code embedded}: the worker's process is a
 *   member of the cluster; {@code client}: it connects to a separate cluster</td></tr>
 *   <tr><td>{@code clusterName}</td><td>{@value #DEFAULT_CLUSTER_NAME}</td><td>the cluster's name (workers
 *   of different jobs on one network use different names)</td></tr>
 *   <tr><td>{@code port}</td><td>{@value #DEFAULT_PORT}</td><td>the port an embedded member listens on
 *   (1..65535)</td></tr>
 *   <tr><td>{@code splitFloats}</td><td>{@value #DEFAULT_SPLIT_FLOATS}</td><td>arrays longer than this are
 *   split into parts of at most this many floats, spread over the members, ≥ 1</td></tr>
 *   <tr><td>{@code backups}</td><td>{@value #DEFAULT_BACKUPS}</td><td>synchronous backup copies of each
 *   key's value (0..6)</td></tr>
 *   <tr><td>{@code resume}</td><td>empty</td><td>a checkpoint file written by {@link KVStore#checkpoint}:
 *   the store continues from it (its keys' values, optimizer state and period); on a distributed store
 *   every worker sets it and rank 0 reads the file</td></tr>
 * </table>
 *
 * <p>Other names are implementation-specific: kept as text and read with {@link #get(String)}. A
 * {@code depengine.kvstore.*} system property whose name is neither a setting above nor one a provider
 * declares ({@link org.depengine.kvstore.spi.KVStoreProvider#settingNames()}) is logged once as a
 * warning naming the closest known name.
 *
 * <p>Thread-safe (immutable); the builder is not.
 */
public final class KVStoreSettings {
    private static final Logger LOG = LoggerFactory.getLogger(KVStoreSettings.class);
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    /** Setting name: the cluster's member addresses. */
    public static final String MEMBERS = "members";
    /** Setting name: this worker's rank. */
    public static final String RANK = "rank";
    /** Setting name: the number of workers. */
    public static final String NUM_WORKERS = "numWorkers";
    /** Setting name: the bound on a remote call, in milliseconds. */
    public static final String TIMEOUT_MS = "timeoutMs";
    /** Setting name: {@code embedded} or {@code client}. */
    public static final String MODE = "mode";
    /** Setting name: the cluster's name. */
    public static final String CLUSTER_NAME = "clusterName";
    /** Setting name: the port of an embedded member. */
    public static final String PORT = "port";
    /** Setting name: the longest array kept in one piece, in floats. */
    public static final String SPLIT_FLOATS = "splitFloats";
    /** Setting name: the number of backup copies. */
    public static final String BACKUPS = "backups";

    /** Setting name: the checkpoint file a new store continues from ({@link KVStore#checkpoint}). */
    public static final String RESUME = "resume";

    /** The settings every store understands, in table order. */
    public static final List<String> NAMES = List.of(MEMBERS, RANK, NUM_WORKERS, TIMEOUT_MS, MODE, CLUSTER_NAME, PORT,
            SPLIT_FLOATS, BACKUPS, RESUME);

    /** Default {@code timeoutMs}: 5 minutes, a last resort (a slow worker is waited for). */
    public static final long DEFAULT_TIMEOUT_MS = 300_000;
    /** Default {@code clusterName}. */
    public static final String DEFAULT_CLUSTER_NAME = "depengine";
    /** Default {@code port}. */
    public static final int DEFAULT_PORT = 5701;
    /** Default {@code splitFloats}: 1 M floats (4 MiB). */
    public static final int DEFAULT_SPLIT_FLOATS = 1 << 20;
    /** Default {@code backups}. */
    public static final int DEFAULT_BACKUPS = 1;

    /** Whether a worker's process is a cluster member or a client of a separate cluster. */
    public enum Mode {
        /** The worker's JVM is a member of the cluster (the default; what tests use). */
        EMBEDDED,
        /** The worker connects as a client to a cluster run elsewhere. */
        CLIENT;

        /** The setting's text: {@code "embedded"} or {@code "client"}. */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final List<String> members;
    private final int rank;
    private final int numWorkers;
    private final long timeoutMs;
    private final Mode mode;
    private final String clusterName;
    private final int port;
    private final int splitFloats;
    private final int backups;
    private final Map<String, String> extras;

    private KVStoreSettings(Builder b) {
        members = List.copyOf(b.members);
        rank = b.rank;
        numWorkers = b.numWorkers;
        timeoutMs = b.timeoutMs;
        mode = b.mode;
        clusterName = b.clusterName;
        port = b.port;
        splitFloats = b.splitFloats;
        backups = b.backups;
        extras = Collections.unmodifiableMap(new TreeMap<>(b.extras));
    }

    /** A builder with every setting at its default. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every setting at its default (a single worker, rank 0). */
    public static KVStoreSettings defaults() {
        return new Builder().build();
    }

    /**
     * The settings of the {@code depengine.kvstore.*} system properties, read now; settings not given
     * keep their defaults. Unknown names are warned about once each (see the class comment).
     *
     * @throws IllegalArgumentException if a value is invalid: the message names the property, its value
     *     and that it came from a system property
     */
    public static KVStoreSettings fromSystemProperties() {
        Properties props = System.getProperties();
        Map<String, String> found = new TreeMap<>();
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(KVStore.PROPERTY_PREFIX)) {
                found.put(name.substring(KVStore.PROPERTY_PREFIX.length()), props.getProperty(name));
            }
        }
        Builder b = new Builder();
        Set<String> known = null;
        for (Map.Entry<String, String> e : found.entrySet()) {
            String name = e.getKey();
            if (!NAMES.contains(name)) {
                if (known == null) {
                    known = new TreeSet<>(NAMES);
                    known.addAll(KVStoreProviders.settingNames());
                }
                if (!known.contains(name) && WARNED.add(name)) {
                    LOG.warn("unknown system property {}{}: no store reads it; did you mean {}{}? (known: {})",
                            KVStore.PROPERTY_PREFIX, name, KVStore.PROPERTY_PREFIX, closest(name, known), known);
                }
            }
            b.parse(name, e.getValue(), "system property");
        }
        return b.build();
    }

    /** The known name closest to {@code name} (edit distance, case-insensitive). */
    static String closest(String name, Set<String> known) {
        return KnownSettings.closest(name, known);
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.members = new ArrayList<>(members);
        b.rank = rank;
        b.numWorkers = numWorkers;
        b.timeoutMs = timeoutMs;
        b.mode = mode;
        b.clusterName = clusterName;
        b.port = port;
        b.splitFloats = splitFloats;
        b.backups = backups;
        b.extras.putAll(extras);
        return b;
    }

    /** The member addresses, {@code host:port} each; empty for the implementation's default. */
    public List<String> members() {
        return members;
    }

    /** This worker's rank, in [0, numWorkers). */
    public int rank() {
        return rank;
    }

    /** The number of workers, ≥ 1. */
    public int numWorkers() {
        return numWorkers;
    }

    /** The bound on one remote call, in milliseconds, ≥ 1. */
    public long timeoutMs() {
        return timeoutMs;
    }

    /** Embedded member or client. */
    public Mode mode() {
        return mode;
    }

    /** The cluster's name. */
    public String clusterName() {
        return clusterName;
    }

    /** The port of an embedded member. */
    public int port() {
        return port;
    }

    /** The longest array kept in one piece, in floats, ≥ 1. */
    public int splitFloats() {
        return splitFloats;
    }

    /** The number of backup copies of each key's value, 0..6. */
    public int backups() {
        return backups;
    }

    /** The checkpoint to continue from ({@code resume}), if set to a non-blank path. */
    public Optional<java.nio.file.Path> resume() {
        String v = extras.get(RESUME);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(java.nio.file.Path.of(v.strip()));
    }

    /**
     * Any setting by its short name, as text: the built-in ones in their text form, the others as given.
     *
     * @throws NullPointerException if {@code name} is null
     */
    public Optional<String> get(String name) {
        Objects.requireNonNull(name, "name");
        return Optional.ofNullable(asMap().get(name));
    }

    /** Every setting by short name, as text (the built-in ones always present), unmodifiable. */
    public Map<String, String> asMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(MEMBERS, String.join(",", members));
        m.put(RANK, Integer.toString(rank));
        m.put(NUM_WORKERS, Integer.toString(numWorkers));
        m.put(TIMEOUT_MS, Long.toString(timeoutMs));
        m.put(MODE, mode.toString());
        m.put(CLUSTER_NAME, clusterName);
        m.put(PORT, Integer.toString(port));
        m.put(SPLIT_FLOATS, Integer.toString(splitFloats));
        m.put(BACKUPS, Integer.toString(backups));
        m.putAll(extras);
        return Collections.unmodifiableMap(m);
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
     * Builds {@link KVStoreSettings}. Each setter validates its value at once
     * ({@link IllegalArgumentException} naming the property and that it was set on the builder);
     * {@link #build()} checks the settings together. Not thread-safe.
     */
    public static final class Builder {
        private static final String BUILDER = "set on KVStoreSettings.Builder";

        private List<String> members = new ArrayList<>();
        private int rank;
        private int numWorkers = 1;
        private long timeoutMs = DEFAULT_TIMEOUT_MS;
        private Mode mode = Mode.EMBEDDED;
        private String clusterName = DEFAULT_CLUSTER_NAME;
        private int port = DEFAULT_PORT;
        private int splitFloats = DEFAULT_SPLIT_FLOATS;
        private int backups = DEFAULT_BACKUPS;
        private final Map<String, String> extras = new TreeMap<>();
        private final Map<String, String> sources = new TreeMap<>();

        private Builder() {
        }

        /** The member addresses, each {@code host:port}. */
        public Builder members(List<String> addresses) {
            Objects.requireNonNull(addresses, "addresses");
            List<String> checked = new ArrayList<>();
            for (String a : addresses) {
                checked.add(address(Objects.requireNonNull(a, "address"), String.join(",", addresses), BUILDER));
            }
            members = checked;
            sources.put(MEMBERS, BUILDER);
            return this;
        }

        /** The member addresses as comma-separated {@code host:port} text. */
        public Builder members(String addresses) {
            Objects.requireNonNull(addresses, "addresses");
            return parse(MEMBERS, addresses, BUILDER);
        }

        /** This worker's rank, ≥ 0 (and below numWorkers, checked by {@link #build()}). */
        public Builder rank(int rank) {
            this.rank = (int) range(RANK, rank, Integer.toString(rank), 0, Integer.MAX_VALUE - 1, BUILDER);
            sources.put(RANK, BUILDER);
            return this;
        }

        /** The number of workers, ≥ 1. */
        public Builder numWorkers(int numWorkers) {
            this.numWorkers = (int) range(NUM_WORKERS, numWorkers, Integer.toString(numWorkers), 1, Integer.MAX_VALUE,
                    BUILDER);
            sources.put(NUM_WORKERS, BUILDER);
            return this;
        }

        /** The bound on one remote call, in milliseconds, ≥ 1. */
        public Builder timeoutMs(long timeoutMs) {
            this.timeoutMs = range(TIMEOUT_MS, timeoutMs, Long.toString(timeoutMs), 1, Long.MAX_VALUE, BUILDER);
            return this;
        }

        /** Embedded member or client. */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** The cluster's name: not blank. */
        public Builder clusterName(String clusterName) {
            Objects.requireNonNull(clusterName, "clusterName");
            return parse(CLUSTER_NAME, clusterName, BUILDER);
        }

        /** The port of an embedded member, 1..65535. */
        public Builder port(int port) {
            this.port = (int) range(PORT, port, Integer.toString(port), 1, 65535, BUILDER);
            return this;
        }

        /** The longest array kept in one piece, in floats, ≥ 1. */
        public Builder splitFloats(int splitFloats) {
            this.splitFloats = (int) range(SPLIT_FLOATS, splitFloats, Integer.toString(splitFloats), 1,
                    Integer.MAX_VALUE, BUILDER);
            return this;
        }

        /** The number of backup copies of each key's value, 0..6. */
        public Builder backups(int backups) {
            this.backups = (int) range(BACKUPS, backups, Integer.toString(backups), 0, 6, BUILDER);
            return this;
        }

        /**
         * Any setting by short name, as text: a built-in one is parsed and validated as its property
         * would be; another name is kept for the implementation ({@link KVStoreSettings#get(String)}).
         *
         * @throws NullPointerException if an argument is null
         * @throws IllegalArgumentException if the name is blank, or a built-in setting's value is invalid
         */
        public Builder set(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            return parse(name, value, BUILDER);
        }

        Builder parse(String name, String raw, String source) {
            if (name.isBlank()) {
                throw new IllegalArgumentException("a kvstore setting name must not be blank (" + source + ")");
            }
            String v = raw.strip();
            switch (name) {
                case MEMBERS -> {
                    List<String> list = new ArrayList<>();
                    for (String part : v.split(",")) {
                        if (!part.isBlank()) {
                            list.add(address(part.strip(), raw, source));
                        }
                    }
                    members = list;
                }
                case RANK -> rank = (int) range(name, parseLong(name, raw, source), raw, 0, Integer.MAX_VALUE - 1, source);
                case NUM_WORKERS -> numWorkers = (int) range(name, parseLong(name, raw, source), raw, 1, Integer.MAX_VALUE,
                        source);
                case TIMEOUT_MS -> timeoutMs = range(name, parseLong(name, raw, source), raw, 1, Long.MAX_VALUE, source);
                case MODE -> {
                    try {
                        mode = Mode.valueOf(v.toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw invalid(name, raw, source, "expected 'embedded' or 'client'", e);
                    }
                }
                case CLUSTER_NAME -> {
                    if (v.isEmpty()) {
                        throw invalid(name, raw, source, "expected a non-blank name", null);
                    }
                    clusterName = v;
                }
                case PORT -> port = (int) range(name, parseLong(name, raw, source), raw, 1, 65535, source);
                case SPLIT_FLOATS -> splitFloats = (int) range(name, parseLong(name, raw, source), raw, 1,
                        Integer.MAX_VALUE, source);
                case BACKUPS -> backups = (int) range(name, parseLong(name, raw, source), raw, 0, 6, source);
                default -> extras.put(name, raw);
            }
            sources.put(name, source);
            return this;
        }

        /**
         * The settings.
         *
         * @throws IllegalArgumentException if {@code rank} is not below {@code numWorkers} (naming both
         *     and where each came from)
         */
        public KVStoreSettings build() {
            if (rank >= numWorkers) {
                throw new IllegalArgumentException(KVStore.PROPERTY_PREFIX + RANK + "=" + rank + " ("
                        + sources.getOrDefault(RANK, "default") + ") must be below " + KVStore.PROPERTY_PREFIX
                        + NUM_WORKERS + "=" + numWorkers + " (" + sources.getOrDefault(NUM_WORKERS, "default")
                        + "): ranks run from 0 to numWorkers - 1");
            }
            return new KVStoreSettings(this);
        }

        private static long parseLong(String name, String raw, String source) {
            try {
                return Long.parseLong(raw.strip());
            } catch (NumberFormatException e) {
                throw invalid(name, raw, source, "expected a whole number", e);
            }
        }

        private static long range(String name, long v, String raw, long min, long max, String source) {
            if (v < min || v > max) {
                throw invalid(name, raw, source, "expected a whole number in [" + min + ", " + max + "]", null);
            }
            return v;
        }

        private static String address(String a, String raw, String source) {
            int colon = a.lastIndexOf(':');
            if (colon <= 0 || colon == a.length() - 1) {
                throw invalid(MEMBERS, raw, source, "'" + a + "' is not host:port (e.g. 127.0.0.1:5701)", null);
            }
            int p;
            try {
                p = Integer.parseInt(a.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw invalid(MEMBERS, raw, source, "'" + a + "' has no numeric port (e.g. 127.0.0.1:5701)", e);
            }
            if (p < 1 || p > 65535) {
                throw invalid(MEMBERS, raw, source, "'" + a + "' has port " + p + ", outside 1..65535", null);
            }
            return a;
        }

        private static IllegalArgumentException invalid(String name, String raw, String source, String expected,
                Throwable cause) {
            return new IllegalArgumentException(KVStore.PROPERTY_PREFIX + name + "='" + raw + "' (" + source
                    + ") is invalid: " + expected, cause);
        }
    }
}
