package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.nio.ByteOrder;
import org.depengine.kvstore.hazelcast.hz.CallbackThreads;
import org.depengine.kvstore.hazelcast.hz.StateFactory;
import org.depengine.kvstore.hazelcast.hz.UpdaterClasses;

/**
 * Starts this worker's Hazelcast instance: an embedded member (the default) or a client of a
 * separate cluster. Members join over a fixed TCP member list (no multicast, no auto-detection),
 * log through SLF4J, never phone home, and heartbeat every second so that a member gone silent is
 * removed within seconds (a killed process is usually noticed at once, by its closed connections).
 */
public final class ClusterNode {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ClusterNode.class);
    /** The maps of every store: {@code depengine.kv.<job id>} and {@code depengine.kv.<job id>.ranks}. */
    public static final String MAP_PREFIX = "depengine.kv.";
    /** The suffix of a job's map of ranks (rank → the id of the worker that holds it). */
    public static final String RANKS_SUFFIX = ".ranks";
    /** The suffix of a job's map of shared settings (numWorkers, the resumed period, the data addresses). */
    public static final String SHARED_SUFFIX = ".shared";
    /**
     * The byte order of everything members and clients serialize: little-endian, the order of the x86 and
     * ARM hosts this runs on, so a float array is written and read with a plain memory copy (Hazelcast's
     * default, big-endian, swaps every element: 14 % of the CPU of a 16 MiB round with one worker). Every
     * member and client of a cluster must use the same order, so both configurations below set it.
     */
    public static final ByteOrder WIRE_ORDER = ByteOrder.LITTLE_ENDIAN;

    private ClusterNode() {
    }

    /** Starts an embedded member or a client, as {@code settings} say; returns once it has joined. */
    public static HazelcastInstance start(ClusterSettings settings) {
        CallbackThreads.reuse();
        return settings.client() ? HazelcastClient.newHazelcastClient(clientConfig(settings)) : startMember(settings);
    }

    /**
     * Starts a joiner's instance ({@code join=true}): as {@link #start}, but an embedded member that finds itself
     * alone (it formed a cluster of its own: the job's members did not answer its join in time, one of them being
     * removed, say) leaves and tries again, until {@code joinTimeoutMs}. A joiner alone would wait in a job of one.
     *
     * @throws com.hazelcast.core.HazelcastException if the job's cluster took no member within the join timeout
     */
    public static HazelcastInstance startJoining(ClusterSettings settings) {
        if (settings.client()) {
            return start(settings);
        }
        long deadline = System.nanoTime() + settings.joinTimeout().toNanos();
        for (int attempt = 1; ; attempt++) {
            HazelcastInstance hz = startMember(settings);
            if (hz.getCluster().getMembers().size() > 1) {
                return hz;
            }
            hz.shutdown();
            if (System.nanoTime() - deadline > 0) {
                throw new com.hazelcast.core.HazelcastException("no member of cluster '" + settings.clusterName()
                        + "' at " + settings.members() + " took this joiner in within " + settings.joinTimeoutMs()
                        + " ms (depengine.kvstore.joinTimeoutMs, " + attempt + " attempts): is the job running there?");
            }
            LOG.info("joiner: the cluster at {} did not take this member in (attempt {}); trying again", settings.members(),
                    attempt);
            try {
                Thread.sleep(Math.min(1000, 100L * attempt)); // backing off between joins, bounded by the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new com.hazelcast.core.HazelcastException("interrupted while joining cluster '"
                        + settings.clusterName() + "'", e);
            }
        }
    }

    /**
     * Starts a member (of a worker, or of a separate cluster, as {@code KVServer} runs), which also
     * reports client workers that leave without closing their store as lost ({@link ClientLossReporter}).
     */
    public static HazelcastInstance startMember(ClusterSettings settings) {
        CallbackThreads.reuse();
        HazelcastInstance hz = Hazelcast.newHazelcastInstance(memberConfig(settings));
        hz.getClientService().addClientListener(new ClientLossReporter(hz));
        return hz;
    }

    /** The configuration of a member: also what a separate cluster's members must run with. */
    public static Config memberConfig(ClusterSettings s) {
        Config c = new Config();
        c.setClusterName(s.clusterName());
        c.setProperty("hazelcast.logging.type", "slf4j");
        c.setProperty("hazelcast.phone.home.enabled", "false");
        c.setProperty("hazelcast.heartbeat.interval.seconds", Integer.toString(s.heartbeatSeconds()));
        c.setProperty("hazelcast.max.no.heartbeat.seconds", Integer.toString(5 * s.heartbeatSeconds()));
        c.setProperty("hazelcast.operation.call.timeout.millis", Long.toString(s.timeoutMs()));
        // Join at once: the member list is fixed, there is nothing to wait for.
        c.setProperty("hazelcast.wait.seconds.before.join", "0");
        c.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        c.setProperty("hazelcast.health.monitoring.level", "OFF");
        c.setProperty("hazelcast.socket.bind.any", s.bind() == null ? "true" : "false");
        c.setProperty("hazelcast.partition.count", Integer.toString(s.partitions()));
        NetworkConfig n = c.getNetworkConfig();
        n.setPort(s.port()).setPortCount(s.portCount()).setPortAutoIncrement(s.portCount() > 1);
        if (s.bind() != null) {
            n.getInterfaces().setEnabled(true).addInterface(s.bind());
        }
        JoinConfig join = n.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(s.members());
        // The keys' entries have `backups` synchronous copies: a lost member's keys live on in them. The job's
        // coordination maps (ranks, shared settings, an elastic job's views) always have two, whatever the keys
        // have: they are small, and two members lost at once (two killed back to back) must not take every copy of
        // the view. OBJECT: entry processors work on the arrays in place instead of deserializing and re-serializing
        // them on every push.
        c.addMapConfig(new MapConfig(MAP_PREFIX + "*").setBackupCount(s.backups()).setAsyncBackupCount(0)
                .setInMemoryFormat(InMemoryFormat.OBJECT));
        c.addMapConfig(new MapConfig(MAP_PREFIX + "*" + RANKS_SUFFIX).setBackupCount(Math.max(2, s.backups())));
        c.addMapConfig(new MapConfig(MAP_PREFIX + "*" + SHARED_SUFFIX).setBackupCount(Math.max(2, s.backups())));
        c.getSerializationConfig().addDataSerializableFactory(StateFactory.ID, new StateFactory())
                .setJavaSerializationFilterConfig(UpdaterClasses.filter(s.updaterClasses())).setByteOrder(WIRE_ORDER);
        return c;
    }

    /** The configuration of a client of a separate cluster. */
    public static ClientConfig clientConfig(ClusterSettings s) {
        ClientConfig c = new ClientConfig();
        c.setClusterName(s.clusterName());
        c.setProperty("hazelcast.logging.type", "slf4j");
        c.setProperty("hazelcast.phone.home.enabled", "false");
        c.setProperty("hazelcast.client.invocation.timeout.seconds",
                Long.toString(Math.max(1, s.timeout().toSeconds())));
        c.getNetworkConfig().setAddresses(s.members());
        // Connecting is joining: bounded as a member's join is, not by the (minutes-long) call timeout.
        c.getConnectionStrategyConfig().getConnectionRetryConfig()
                .setClusterConnectTimeoutMillis(s.joinTimeout().toMillis());
        c.getSerializationConfig().addDataSerializableFactory(StateFactory.ID, new StateFactory())
                .setJavaSerializationFilterConfig(UpdaterClasses.filter(s.updaterClasses())).setByteOrder(WIRE_ORDER);
        return c;
    }
}
