package org.depengine.kvstore.hazelcast;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;
import org.depengine.kvstore.KVStore;

/**
 * The settings {@code kvstore-hazelcast} reads (under {@code depengine.kvstore.}), declared once for the
 * project's catalog and read through the one parser ({@link org.depengine.kvstore.KVStoreSettings#get(Setting)}).
 * Give them to a store with {@code KVStoreSettings.builder().set("members", "...")} or as system properties.
 */
public final class HazelcastSettings implements SettingsCatalog {
    /** Whether a worker's process is a cluster member or a client of a separate cluster. */
    public enum Mode {
        /** The worker's JVM is a member of the cluster (the default; what tests use). */
        EMBEDDED,
        /** The worker connects as a client to a cluster run elsewhere ({@link KVServer}). */
        CLIENT;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where a {@code dist_sync} key's updater runs (MXNet's {@code update_on_kvstore}). */
    public enum UpdateOn {
        /**
         * On every worker, on the round's sum: the store only sums (each worker's gradient reaches the
         * worker that sums that part of the key, and the sum goes back to every worker), so a step moves
         * the bytes of an allreduce, nothing waits for a backup, and the weights and optimizer state are
         * on every worker (PyTorch DDP, Horovod, MXNet's {@code update_on_kvstore=False}).
         */
        WORKER,
        /**
         * Where the key lives, on a Hazelcast member: the weights and the optimizer's state are sharded over
         * the members and kept with {@code backups} synchronous copies ({@code dist_async} always).
         */
        SERVER;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final String P = KVStore.PROPERTY_PREFIX;
    private static final Pattern IPV4_PATTERN = Pattern.compile(
            "(\\d{1,3}|\\*|\\d{1,3}-\\d{1,3})(\\.(\\d{1,3}|\\*|\\d{1,3}-\\d{1,3})){3}");
    private static final Pattern CLASS_NAME = Pattern.compile("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}.$]*");

    /** {@code members}: every member's {@code host:port}. */
    public static final Setting<List<String>> MEMBERS = Setting.ofList(P + "members", "a host:port address (e.g. 127.0.0.1:5701)",
            HazelcastSettings::hostPort, "The cluster's members, host:port, in rank order where they are the workers; "
                    + "empty: this worker's own port on loopback.");
    /** {@code mode}. */
    public static final Setting<Mode> MODE = Setting.ofChoice(P + "mode", Mode.class, Mode.EMBEDDED,
            "embedded: the worker's JVM is a member of the cluster; client: it connects to a separate cluster (KVServer).");
    /** {@code clusterName}. */
    public static final Setting<String> CLUSTER_NAME = Setting.ofText(P + "clusterName", "depengine",
            "The Hazelcast cluster's name: members of clusters with other names never join each other.");
    /** {@code port}. */
    public static final Setting<Integer> PORT = Setting.ofInt(P + "port", 5701, 1, 65535,
            "The port an embedded member listens on (tried upwards for portCount ports).");
    /** {@code portCount}. */
    public static final Setting<Integer> PORT_COUNT = Setting.ofInt(P + "portCount", 20, 1, 1000,
            "How many ports from port a member may try.");
    /** {@code bind}. */
    public static final Setting<String> BIND = Setting.of(P + "bind", "an IPv4 address or pattern (e.g. 10.0.0.7 or 10.0.0.*)",
            null, "127.0.0.1 if every member is on loopback, else all interfaces",
            "The interface members (and the data transport of updateOn=worker) bind to.", HazelcastSettings::bindAddress);
    /** {@code jobId}. */
    public static final Setting<String> JOB_ID = Setting.ofText(P + "jobId", "default",
            "Names the job's maps (the same on every worker), so that jobs sharing a cluster do not mix: a store whose "
                    + "maps hold an earlier job's state is refused at open, and the job's last worker to close destroys them.");
    /** {@code joinTimeoutMs}. */
    public static final Setting<Duration> JOIN_TIMEOUT = Setting.ofMillis(P + "joinTimeoutMs", Duration.ofMinutes(2),
            Duration.ofMillis(1), Duration.ofMillis(Integer.MAX_VALUE),
            "How long opening a store (in client mode: connecting to the cluster) and a barrier wait for every worker.");
    /** {@code heartbeatSeconds}. */
    public static final Setting<Integer> HEARTBEAT_SECONDS = Setting.ofInt(P + "heartbeatSeconds", 1, 1, 60,
            "Member heartbeat; a member silent for 5 heartbeats is removed.");
    /** {@code partitions}. */
    public static final Setting<Integer> PARTITIONS = Setting.ofInt(P + "partitions", 71, 1, 10_000,
            "Hazelcast partitions the keys hash to (the same on every member; a few per member for large clusters).");
    /** {@code splitFloats}. */
    public static final Setting<Integer> SPLIT_FLOATS = Setting.ofInt(P + "splitFloats", 1 << 20, 1, Integer.MAX_VALUE,
            "Arrays longer than this are split into parts of at most this many floats, summed (and updated) on "
                    + "different workers or members.");
    /** {@code backups}. */
    public static final Setting<Integer> BACKUPS = Setting.ofInt(P + "backups", 1, 0, 6,
            "Synchronous backup copies of each key's state on the members (updateOn=server and dist_async; the job's "
                    + "coordination maps always have at least two).");
    /** {@code updaterClasses}. */
    public static final Setting<List<String>> UPDATER_CLASSES = Setting.ofList(P + "updaterClasses",
            "a binary class name (com.example.MyUpdater, com.example.Outer$Inner)", HazelcastSettings::className,
            "The user's updater classes a key's owner deserializes (updateOn=server and dist_async), besides the built-in ones.");
    /** {@code updateOn}: null by default, which means worker for dist_sync and server for dist_async. */
    public static final Setting<UpdateOn> UPDATE_ON = Setting.of(P + "updateOn", "worker or server", null,
            "worker for dist_sync, server for dist_async", "dist_sync: where the updater runs. worker: on every worker, "
                    + "on the round's sum (the store only sums: a step moves the bytes of an allreduce and waits for no "
                    + "backup); server: on the key's owner, its state sharded over the members with backups. dist_async "
                    + "takes server only.", HazelcastSettings::updateOn);
    /** {@code dataPort}. */
    public static final Setting<Integer> DATA_PORT = Setting.ofInt(P + "dataPort", 0, 0, 65535,
            "updateOn=worker: the port of this worker's data transport (the gradients and sums), on the bind "
                    + "address; 0: any free port (each worker tells the others its own through the cluster).");

    /**
     * {@code elastic}: whether the job goes on when a worker is lost, and admits joiners
     * ({@code docs/elastic-design.md}); {@code dist_sync} with {@code updateOn=worker} only, for now.
     */
    public static final Setting<Boolean> ELASTIC = Setting.ofBoolean(P + "elastic", false,
            "Whether the job goes on without a lost worker, with the survivors re-ranked (a new membership view), "
                    + "instead of failing its ops: its open rounds complete with the survivors. Every mode; with "
                    + "updateOn=server a split key whose lost worker died in the middle of a push fails its later ops "
                    + "(a torn round). Workers opened with join=true are admitted with dist_sync and updateOn=worker "
                    + "only. join, minWorkers, maxWorkers, minWorkersWaitMs and recoveryTimeoutMs are for elastic jobs "
                    + "only, and refused without it.");
    /** {@code join}: elastic jobs only. */
    public static final Setting<Boolean> JOIN = Setting.ofBoolean(P + "join", false,
            "elastic=true only: this worker joins the running job of its jobId (same members and clusterName) instead "
                    + "of starting one. It gives no rank (the view that admits it gives one) and may leave numWorkers "
                    + "unset; its store starts in the period the job admits it at (KVStore.period()), and each key it "
                    + "inits takes the job's value, optimizer state and update count. Refused when the job is at "
                    + "maxWorkers, and with dist_async or updateOn=server (not built yet).");
    /** {@code minWorkers}: elastic jobs only; null by default, which means {@code numWorkers}. */
    public static final Setting<Integer> MIN_WORKERS = Setting.of(P + "minWorkers", "a whole number in [1, "
            + Integer.MAX_VALUE + "]", null, "numWorkers", "elastic=true only: the fewest workers the job runs with "
            + "(at most numWorkers); below it the job pauses, and fails after minWorkersWaitMs.",
            t -> positive(t));
    /** {@code maxWorkers}: elastic jobs only; null by default, which means {@code numWorkers}. */
    public static final Setting<Integer> MAX_WORKERS = Setting.of(P + "maxWorkers", "a whole number in [1, "
            + Integer.MAX_VALUE + "]", null, "numWorkers", "elastic=true only: the most workers the job admits "
            + "(at least numWorkers, which is how many it waits for at start).", t -> positive(t));
    /** {@code minWorkersWaitMs}: elastic jobs only. */
    public static final Setting<Duration> MIN_WORKERS_WAIT = Setting.ofMillis(P + "minWorkersWaitMs",
            Duration.ofMinutes(1), Duration.ZERO, Duration.ofMillis(Integer.MAX_VALUE),
            "elastic=true only: how long a job below minWorkers waits, paused, for workers to join before it fails "
                    + "(0: it fails at once).");
    /** {@code recoveryTimeoutMs}: elastic jobs only. */
    public static final Setting<Duration> RECOVERY_TIMEOUT = Setting.ofMillis(P + "recoveryTimeoutMs",
            Duration.ofSeconds(10), Duration.ofMillis(1), Duration.ofMillis(Integer.MAX_VALUE),
            "elastic=true only: the longest the survivors of a loss take to bring their open rounds to the new view "
                    + "before the job fails.");

    /** For {@link java.util.ServiceLoader}. */
    public HazelcastSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(MEMBERS, MODE, CLUSTER_NAME, PORT, PORT_COUNT, BIND, JOB_ID, JOIN_TIMEOUT, HEARTBEAT_SECONDS,
                PARTITIONS, SPLIT_FLOATS, BACKUPS, UPDATER_CLASSES, UPDATE_ON, DATA_PORT, ELASTIC, JOIN, MIN_WORKERS, MAX_WORKERS,
                MIN_WORKERS_WAIT, RECOVERY_TIMEOUT);
    }

    private static Integer positive(String t) {
        int v = Integer.parseInt(t); // a NumberFormatException is an IllegalArgumentException: no detail
        if (v < 1) {
            throw new IllegalArgumentException();
        }
        return v;
    }

    private static String hostPort(String a) {
        int colon = a.lastIndexOf(':');
        if (colon <= 0 || colon == a.length() - 1) {
            throw new IllegalArgumentException("'" + a + "' is not host:port");
        }
        int p;
        try {
            p = Integer.parseInt(a.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + a + "' has no numeric port", e);
        }
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("'" + a + "' has port " + p + ", outside 1..65535");
        }
        return a;
    }

    private static String bindAddress(String a) {
        if (!IPV4_PATTERN.matcher(a).matches()) {
            throw new IllegalArgumentException("'" + a + "' is not one");
        }
        for (String part : a.split("[.-]")) {
            if (!part.equals("*") && Integer.parseInt(part) > 255) {
                throw new IllegalArgumentException("'" + a + "' has a part above 255");
            }
        }
        return a;
    }

    private static String className(String name) {
        if (!CLASS_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + name + "' is not a class name");
        }
        return name;
    }

    private static UpdateOn updateOn(String text) {
        for (UpdateOn u : UpdateOn.values()) {
            if (u.name().equalsIgnoreCase(text)) {
                return u;
            }
        }
        throw new IllegalArgumentException();
    }
}
