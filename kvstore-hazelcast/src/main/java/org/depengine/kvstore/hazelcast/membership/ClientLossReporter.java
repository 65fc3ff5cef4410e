package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.client.Client;
import com.hazelcast.client.ClientListener;
import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.Map;
import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.RankOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a member: a client worker (mode {@code client}) that disconnects while its rank is still
 * registered (it did not close its store, which marks the rank closed) is a lost worker. Workers'
 * membership listeners see members only, so the members report it: in the job's shared map, which every
 * worker of the job listens to (so each knows at once, whether or not any key exists yet), and to every
 * key of its job, whose rounds it has not pushed fail, naming its rank, within seconds instead of at the
 * call timeout. Every member the client was connected to reports it; the report is idempotent.
 */
final class ClientLossReporter implements ClientListener {
    private static final Logger LOG = LoggerFactory.getLogger(ClientLossReporter.class);

    private final HazelcastInstance member;

    ClientLossReporter(HazelcastInstance member) {
        this.member = member;
    }

    @Override
    public void clientConnected(Client client) {
        // nothing: a worker registers its rank itself
    }

    @Override
    public void clientDisconnected(Client client) {
        // Off Hazelcast's event thread: the calls below go to the maps' owners.
        Thread t = new Thread(() -> report(client), "kvstore-client-loss");
        t.setDaemon(true);
        t.start();
    }

    private void report(Client client) {
        String id = client.getUuid().toString();
        try {
            for (DistributedObject o : member.getDistributedObjects()) {
                String name = o.getName();
                if (!(o instanceof IMap<?, ?>) || !name.startsWith(ClusterNode.MAP_PREFIX)
                        || !name.endsWith(ClusterNode.RANKS_SUFFIX)) {
                    continue;
                }
                String keysName = name.substring(0, name.length() - ClusterNode.RANKS_SUFFIX.length());
                IMap<Integer, String> ranks = member.getMap(name);
                for (Map.Entry<Integer, String> e : ranks.entrySet()) {
                    if (id.equals(e.getValue())) {
                        String reason = "worker rank " + e.getKey() + " (client " + client.getSocketAddress()
                                + ") left the cluster";
                        LOG.warn("{}; its open rounds of job '{}' will fail", reason,
                                keysName.substring(ClusterNode.MAP_PREFIX.length()));
                        // The job's workers learn it from the shared map (whether or not a key exists yet), and
                        // the keys that exist fail the rounds it has not pushed.
                        member.getMap(keysName + ClusterNode.SHARED_SUFFIX).putIfAbsent(JobMembership.LOST + e.getKey(),
                                reason);
                        IMap<String, KeyState> keys = member.getMap(keysName);
                        keys.executeOnEntries(RankOp.lost(0, false, e.getKey(), reason));
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("could not report the loss of client {}: {}", id, e.toString()); // e.g. this member is shutting down
        }
    }
}
