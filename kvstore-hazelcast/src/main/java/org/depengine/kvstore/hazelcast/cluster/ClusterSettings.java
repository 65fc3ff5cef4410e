package org.depengine.kvstore.hazelcast.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * How a worker reaches the cluster, read from {@code depengine.kvstore.*} settings.
 *
 * @param members the cluster's members, {@code host:port}, in the order given (fixed TCP member list)
 * @param port the port this worker's embedded member listens on (tried upwards for {@code portCount} ports)
 * @param portCount how many ports from {@code port} a member may try
 * @param bindAddress the interface members bind to ({@code 127.0.0.1} when every member is on loopback)
 * @param clusterName the Hazelcast cluster name: clusters with different names never join each other
 * @param client true: this worker is a client of a separate cluster; false: an embedded member
 * @param storeName names this job's maps in the cluster, so that jobs sharing a cluster do not mix
 * @param timeout the longest a remote call or a pull waits before failing its op
 * @param chunkFloats arrays longer than this are split into chunks that land on different members
 * @param heartbeatSeconds how often members heartbeat; a member silent for 5 of them is removed
 */
public record ClusterSettings(List<String> members, int port, int portCount, String bindAddress, String clusterName,
                              boolean client, String storeName, Duration timeout, int chunkFloats,
                              int heartbeatSeconds) {
    /** The property prefix. */
    public static final String PREFIX = "depengine.kvstore.";
    /** Default chunk bound: 1 M floats (4 MiB). */
    public static final int DEFAULT_CHUNK_FLOATS = 1 << 20;

    /** Checks the values. */
    public ClusterSettings {
        members = List.copyOf(members);
        if (members.isEmpty()) {
            throw new IllegalArgumentException(PREFIX + "members is empty: list the cluster's members as host:port,...");
        }
        if (port < 1 || port > 65535 || portCount < 1) {
            throw new IllegalArgumentException(PREFIX + "port must be 1..65535 and portCount at least 1; got " + port
                    + " and " + portCount);
        }
        if (chunkFloats < 1) {
            throw new IllegalArgumentException(PREFIX + "chunkFloats must be at least 1; got " + chunkFloats);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(PREFIX + "timeoutMs must be positive; got " + timeout.toMillis());
        }
    }

    /**
     * Reads the settings through {@code lookup} (full property names, e.g. {@code depengine.kvstore.members};
     * null where unset), with defaults for a single loopback member.
     *
     * @throws IllegalArgumentException naming the property whose value is malformed
     */
    public static ClusterSettings from(Function<String, String> lookup) {
        String memberList = value(lookup, "members", "127.0.0.1:5701");
        List<String> members = new ArrayList<>();
        for (String m : memberList.split(",")) {
            if (!m.isBlank()) {
                members.add(m.trim());
            }
        }
        boolean loopback = members.stream().allMatch(m -> m.startsWith("127.") || m.startsWith("localhost"));
        String mode = value(lookup, "mode", "member").toLowerCase(Locale.ROOT);
        if (!mode.equals("member") && !mode.equals("client")) {
            throw new IllegalArgumentException(PREFIX + "mode is '" + mode + "': use member (embedded, the default) or client");
        }
        return new ClusterSettings(members,
                intValue(lookup, "port", 5701),
                intValue(lookup, "portCount", 20),
                value(lookup, "bind", loopback ? "127.0.0.1" : null),
                value(lookup, "cluster", "depengine"),
                mode.equals("client"),
                value(lookup, "name", "default"),
                Duration.ofMillis(intValue(lookup, "timeoutMs", 60_000)),
                intValue(lookup, "chunkFloats", DEFAULT_CHUNK_FLOATS),
                intValue(lookup, "heartbeatSeconds", 1));
    }

    private static String value(Function<String, String> lookup, String name, String dflt) {
        String v = lookup.apply(PREFIX + name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    private static int intValue(Function<String, String> lookup, String name, int dflt) {
        String v = value(lookup, name, null);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PREFIX + name + " is '" + v + "': expected an integer", e);
        }
    }
}
