package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.Objects;
import java.util.Set;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.kvstore.hazelcast.membership.ElasticSettings;
import org.depengine.kvstore.spi.KVStoreProvider;

/**
 * Makes {@code dist_sync} and {@code dist_async} stores on a Hazelcast cluster. Each store starts its
 * own Hazelcast instance (an embedded member, or a client with {@code mode=client}) from the settings
 * and shuts it down when closed; opening returns once every one of {@code numWorkers} workers has joined.
 *
 * <p>One job, one store: a job's maps are named by its {@code jobId} (the same on every worker).
 * Opening a store whose maps hold an earlier job's state (no rank in them held by a live worker) throws
 * a {@link KVStoreException} asking for a new job id; a worker that closes its store normally ends its
 * part in every later round (they complete without it, except, with {@code updateOn=worker}, the rounds of
 * a key part of which it summed: those fail naming it) and is not reported as lost, and the job's last
 * worker to close destroys its maps, in client mode too. A barrier needs every worker: one that closed
 * fails the barriers it did not reach on the others, at once.
 *
 * <p>Liveness: a worker that leaves without closing its store is reported lost (by the others'
 * membership listeners, or for a client by the members), and the rounds it can no longer complete
 * fail, naming it; once a worker knows of a loss, its later {@code dist_sync} calls of such rounds fail
 * at once, without a network call. A worker cut off from the others with part of the job's keys fails
 * its own calls, naming the ranks it lost contact with.
 *
 * <p>Settings read: the store-wide ones of {@link KVStoreSettings} and this module's, declared in
 * {@link HazelcastSettings}.
 */
public final class HazelcastKVStoreProvider implements KVStoreProvider {
    /** Rounds: each key's update waits for every worker's push (see {@link HazelcastSettings.UpdateOn} for where it runs). */
    public static final String DIST_SYNC = "dist_sync";
    /**
     * Each push is applied as it arrives. A pull sees every push this worker made before it, and of the
     * others' pushes whatever each chunk's owner has applied when it is read: a split key's chunks may
     * hold different sets (no snapshot across a key's chunks, as none across keys).
     */
    public static final String DIST_ASYNC = "dist_async";

    /** For {@link java.util.ServiceLoader}. */
    public HazelcastKVStoreProvider() {
    }

    @Override
    public Set<String> types() {
        return Set.of(DIST_SYNC, DIST_ASYNC);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if a setting is invalid, or {@code join=true} where joiners are not
     *     built yet ({@link ElasticSettings#refuseElasticAtOpen})
     * @throws KVStoreException if the cluster cannot be joined or not every worker joins within
     *     {@code joinTimeoutMs}
     */
    @Override
    public KVStore open(Engine engine, String type, KVStoreSettings settings) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(settings, "settings");
        if (!types().contains(type)) {
            throw new IllegalArgumentException("this provider makes " + types() + " stores, not '" + type + "'");
        }
        ClusterSettings cluster = ClusterSettings.from(settings, DIST_ASYNC.equals(type));
        ElasticSettings.refuseElasticAtOpen(settings, DIST_ASYNC.equals(type), cluster.updateOn()); // before anything starts
        HazelcastInstance hz;
        try {
            hz = ElasticSettings.joins(settings) ? ClusterNode.startJoining(cluster) : ClusterNode.start(cluster);
        } catch (RuntimeException e) {
            if (!cluster.client() && cluster.bind() != null && mentions(e, "No matching network interface")) {
                throw new IllegalArgumentException(settings.describe(HazelcastSettings.BIND) + "='" + cluster.bind()
                        + "' is invalid: no network interface of this machine has that address; give one of its own "
                        + "addresses (or leave it unset)", e);
            }
            throw new KVStoreException(null, settings.rank(), "cannot " + (cluster.client() ? "connect to" : "join")
                    + " cluster '" + cluster.clusterName() + "' at " + cluster.members() + (cluster.client()
                    ? " within depengine.kvstore.joinTimeoutMs: no member there is running, or they run with another "
                    + "depengine.kvstore.clusterName (Hazelcast refuses a client whose cluster name differs)" : ""), e);
        }
        try {
            return new DistKVStore(engine, type, settings, hz, true, cluster);
        } catch (com.hazelcast.core.HazelcastException e) {
            hz.shutdown();
            // Seen when a member runs a Hazelcast configuration of its own without depengine's
            // serialization: it cannot read the store's calls (ClientModeTest), and Hazelcast's own
            // message does not say so.
            throw new KVStoreException(null, settings.rank(), "opening the store on cluster '"
                    + cluster.clusterName() + "' at " + cluster.members() + " failed: " + e.getMessage()
                    + ". If its members were started with a Hazelcast configuration of their own, it must carry "
                    + "depengine's serialization (the StateFactory and byte order " + ClusterNode.WIRE_ORDER
                    + ", as ClusterNode.memberConfig and KVServer set them), or they cannot read this worker's calls",
                    e);
        } catch (RuntimeException e) {
            hz.shutdown();
            throw e;
        }
    }

    /**
     * Opens a store of {@code type} on a Hazelcast instance the caller already runs (a member or a
     * client configured with {@link org.depengine.kvstore.hazelcast.membership.ClusterNode}'s settings, or at
     * least its serialization factory); the store leaves the instance running when closed. Several
     * stores of one job (one {@code jobId}) must each have their own instance: ranks are mapped to
     * instances.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code type} is not {@code dist_sync} or {@code dist_async}, a
     *     setting is invalid, or {@code join=true} where joiners are not built yet
     * @throws KVStoreException if not every worker joins within {@code joinTimeoutMs}
     */
    public static KVStore open(Engine engine, String type, KVStoreSettings settings, HazelcastInstance hz) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(hz, "hz");
        if (!DIST_SYNC.equals(type) && !DIST_ASYNC.equals(type)) {
            throw new IllegalArgumentException("a Hazelcast store is 'dist_sync' or 'dist_async', not '" + type + "'");
        }
        ClusterSettings cluster = ClusterSettings.from(settings, DIST_ASYNC.equals(type));
        ElasticSettings.refuseElasticAtOpen(settings, DIST_ASYNC.equals(type), cluster.updateOn());
        return new DistKVStore(engine, type, settings, hz, false, cluster);
    }

    private static boolean mentions(Throwable e, String text) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(text)) {
                return true;
            }
        }
        return false;
    }
}
