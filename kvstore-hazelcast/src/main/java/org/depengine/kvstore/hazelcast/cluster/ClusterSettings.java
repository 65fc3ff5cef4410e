package org.depengine.kvstore.hazelcast.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.depengine.kvstore.KVStoreSettings;

/**
 * How a worker reaches the cluster: the {@link KVStoreSettings} a distributed store reads, plus its own
 * extra settings ({@link #EXTRA_NAMES}).
 *
 * @param members the cluster's members, {@code host:port}, in the order given (a fixed TCP member list)
 * @param port the port this worker's embedded member listens on (tried upwards for {@code portCount} ports)
 * @param portCount how many ports from {@code port} a member may try ({@code depengine.kvstore.portCount}, default 20)
 * @param bindAddress the interface members bind to ({@code depengine.kvstore.bind}; default {@code 127.0.0.1}
 *     when every member is on loopback, else all interfaces)
 * @param clusterName the Hazelcast cluster name: clusters with different names never join each other
 * @param client true: this worker is a client of a separate cluster; false: an embedded member
 * @param jobId names this job's maps in the cluster ({@code depengine.kvstore.jobId}, default
 *     {@code default}; every worker of a job gives the same), so that jobs sharing a cluster do not mix:
 *     opening a store whose maps hold an earlier job's state is refused, and the job's last worker to
 *     close destroys them
 * @param timeout the longest a remote call waits, and a pull waits without progress, before failing its op
 * @param joinTimeout the longest opening a store waits for every worker to join
 *     ({@code depengine.kvstore.joinTimeoutMs}, default 120000)
 * @param chunkFloats arrays longer than this are split into chunks that land on different members
 * @param backups backup copies of every key (a member lost loses no key while {@code backups >= 1})
 * @param heartbeatSeconds how often members heartbeat; one silent for 5 of them is removed
 *     ({@code depengine.kvstore.heartbeatSeconds}, default 1)
 * @param partitions Hazelcast partitions the keys hash to ({@code depengine.kvstore.partitions}, default 71;
 *     every member must use the same; raise it to a few per member for large clusters)
 * @param updaterClasses the user's updater classes a member deserializes besides the built-in ones
 *     ({@code depengine.kvstore.updaterClasses}, comma-separated binary class names, default none; see
 *     {@link UpdaterClasses})
 */
public record ClusterSettings(List<String> members, int port, int portCount, String bindAddress, String clusterName,
                              boolean client, String jobId, Duration timeout, Duration joinTimeout, int chunkFloats,
                              int backups, int heartbeatSeconds, int partitions,
                              List<String> updaterClasses) {
    /** The extra settings this module reads (short names, under {@code depengine.kvstore.}). */
    public static final Set<String> EXTRA_NAMES = Set.of("portCount", "bind", "jobId", "joinTimeoutMs",
            "heartbeatSeconds", "partitions", UpdaterClasses.SETTING);

    /** Copies the lists. */
    public ClusterSettings {
        members = List.copyOf(members);
        updaterClasses = List.copyOf(updaterClasses);
    }

    /**
     * The cluster settings of {@code s}; with no members given, this worker's own port on loopback.
     *
     * @throws IllegalArgumentException naming an extra setting whose value is malformed
     */
    public static ClusterSettings from(KVStoreSettings s) {
        List<String> members = s.members().isEmpty() ? List.of("127.0.0.1:" + s.port()) : s.members();
        boolean loopback = members.stream().allMatch(m -> m.startsWith("127.") || m.startsWith("localhost"));
        return new ClusterSettings(members, s.port(),
                intExtra(s, "portCount", 20, 1, 1000),
                s.get("bind").orElse(loopback ? "127.0.0.1" : null),
                s.clusterName(),
                s.mode() == KVStoreSettings.Mode.CLIENT,
                s.get("jobId").orElse("default"),
                Duration.ofMillis(s.timeoutMs()),
                Duration.ofMillis(intExtra(s, "joinTimeoutMs", 120_000, 1, Integer.MAX_VALUE)),
                s.splitFloats(),
                s.backups(),
                intExtra(s, "heartbeatSeconds", 1, 1, 60),
                intExtra(s, "partitions", 71, 1, 10_000),
                UpdaterClasses.parse(s.get(UpdaterClasses.SETTING).orElse("")));
    }

    private static int intExtra(KVStoreSettings s, String name, int dflt, int min, int max) {
        String v = s.get(name).orElse(null);
        if (v == null) {
            return dflt;
        }
        try {
            int x = Integer.parseInt(v.strip());
            if (x < min || x > max) {
                throw new NumberFormatException("out of range");
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(KVStoreSettings.class.getSimpleName() + " '" + name + "' (property depengine.kvstore."
                    + name + ") is '" + v + "': expected an integer in " + min + ".." + max, e);
        }
    }
}
