package org.depengine.kvstore.hazelcast.membership;

import java.time.Duration;
import java.util.List;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.HazelcastSettings;
import org.depengine.kvstore.hazelcast.HazelcastSettings.UpdateOn;

/**
 * How a worker reaches the cluster and takes part in its job: the store's {@link KVStoreSettings} read
 * through {@link HazelcastSettings}' declarations (one name per setting, as the user gives it).
 *
 * @param members the cluster's members, {@code host:port}, in the order given (a fixed TCP member list)
 * @param port the port this worker's embedded member listens on (tried upwards for {@code portCount} ports)
 * @param portCount how many ports from {@code port} a member may try
 * @param bind the interface members bind to ({@code 127.0.0.1} when every member is on loopback and none
 *     is given; null: all interfaces)
 * @param clusterName the Hazelcast cluster name: clusters with different names never join each other
 * @param client true: this worker is a client of a separate cluster; false: an embedded member
 * @param jobId names this job's maps in the cluster
 * @param rank this worker's rank
 * @param numWorkers the job's workers
 * @param timeoutMs the longest a remote call waits, and a pull waits without progress, before failing its op
 * @param joinTimeoutMs the longest opening a store, and a barrier, wait for every worker
 * @param splitFloats arrays longer than this are split into parts summed in different places
 * @param backups backup copies of every key's entry ({@code updateOn=server}, {@code dist_async})
 * @param heartbeatSeconds how often members heartbeat; one silent for 5 of them is removed
 * @param partitions Hazelcast partitions the keys hash to
 * @param updaterClasses the user's updater classes a member deserializes besides the built-in ones
 * @param updateOn where a {@code dist_sync} key's updater runs (resolved for the store's type)
 * @param dataPort {@code updateOn=worker}: the data transport's port (0: any)
 */
public record ClusterSettings(List<String> members, int port, int portCount, String bind, String clusterName,
                              boolean client, String jobId, int rank, int numWorkers, long timeoutMs,
                              long joinTimeoutMs, int splitFloats, int backups, int heartbeatSeconds, int partitions,
                              List<String> updaterClasses, UpdateOn updateOn, int dataPort) {
    /** Copies the lists. */
    public ClusterSettings {
        members = List.copyOf(members);
        updaterClasses = List.copyOf(updaterClasses);
    }

    /**
     * The cluster settings of {@code s} for a store of {@code type}; with no members given, this worker's own
     * port on loopback.
     *
     * @throws IllegalArgumentException naming a setting whose value is invalid, or {@code updateOn=worker}
     *     given to a {@code dist_async} store
     */
    public static ClusterSettings from(KVStoreSettings s, boolean async) {
        int port = s.get(HazelcastSettings.PORT);
        List<String> members = s.get(HazelcastSettings.MEMBERS);
        if (members.isEmpty()) {
            members = List.of("127.0.0.1:" + port);
        }
        boolean loopback = members.stream().allMatch(m -> m.startsWith("127.") || m.startsWith("localhost"));
        String bind = s.find(HazelcastSettings.BIND).orElse(loopback ? "127.0.0.1" : null);
        UpdateOn updateOn = s.get(HazelcastSettings.UPDATE_ON);
        if (updateOn == null) {
            updateOn = async ? UpdateOn.SERVER : UpdateOn.WORKER;
        } else if (async && updateOn == UpdateOn.WORKER) {
            throw new IllegalArgumentException(s.get(HazelcastSettings.UPDATE_ON.key()).map(v -> s.describe(HazelcastSettings.UPDATE_ON)
                    + "='" + v + "'").orElse("") + " does not suit a dist_async "
                    + "store: it applies each push as it arrives where the key lives (updateOn=server); updateOn=worker "
                    + "is for dist_sync");
        }
        return new ClusterSettings(members, port, s.get(HazelcastSettings.PORT_COUNT), bind,
                s.get(HazelcastSettings.CLUSTER_NAME), s.get(HazelcastSettings.MODE) == HazelcastSettings.Mode.CLIENT,
                s.get(HazelcastSettings.JOB_ID), s.rank(), s.numWorkers(), s.timeoutMs(),
                s.get(HazelcastSettings.JOIN_TIMEOUT).toMillis(), s.get(HazelcastSettings.SPLIT_FLOATS),
                s.get(HazelcastSettings.BACKUPS), s.get(HazelcastSettings.HEARTBEAT_SECONDS),
                s.get(HazelcastSettings.PARTITIONS), s.get(HazelcastSettings.UPDATER_CLASSES), updateOn,
                s.get(HazelcastSettings.DATA_PORT));
    }

    /** {@link #timeoutMs()} as a duration. */
    public Duration timeout() {
        return Duration.ofMillis(timeoutMs);
    }

    /** {@link #joinTimeoutMs()} as a duration. */
    public Duration joinTimeout() {
        return Duration.ofMillis(joinTimeoutMs);
    }
}
