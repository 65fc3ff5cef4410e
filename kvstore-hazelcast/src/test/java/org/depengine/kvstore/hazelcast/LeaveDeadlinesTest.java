package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A close whose calls go unanswered ends after the call timeout ({@code timeoutMs}), not the join timeout:
 * the leave's calls keep their deadlines while the store closes; and the rank is still marked closed, so
 * the last closer destroys the job's maps. Here the key every barrier uses is locked
 * by another caller, so the owner holds each call on it unanswered. (The leave once ran on the store's
 * one timer thread, which also runs the calls' deadlines: a close then waited the whole join timeout.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaveDeadlinesTest {
    private static final String JOB = "leave-deadlines";
    /** The barrier's key in the job's map ({@code client.Calls.BARRIER}). */
    private static final String BARRIER = "\u0000barrier";
    private static final long CALL_TIMEOUT_MS = 2_000;
    private static final long JOIN_TIMEOUT_MS = 60_000;

    @Test
    void aCloseWhoseCallsGoUnansweredEndsAfterTheCallTimeout() throws Exception {
        TestCluster cluster = new TestCluster(2);
        List<HazelcastInstance> members = cluster.startMembers(2, Map.of());
        Map<String, String> settings = Map.of("jobId", JOB, "timeoutMs", Long.toString(CALL_TIMEOUT_MS),
                "joinTimeoutMs", Long.toString(JOIN_TIMEOUT_MS));
        IMap<String, ?> jobMap = members.get(1).getMap(ClusterNode.MAP_PREFIX + JOB);
        try (Engine e0 = Engine.create("perdevice"); Engine e1 = Engine.create("perdevice")) {
            List<Engine> engines = List.of(e0, e1);
            List<KVStore> stores = TestCluster.parallel(2, r -> HazelcastKVStoreProvider.open(engines.get(r),
                    "dist_sync", cluster.storeSettings(r, settings), members.get(r)));
            jobMap.lock(BARRIER);
            try {
                long start = System.nanoTime();
                stores.get(0).close();
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMs < JOIN_TIMEOUT_MS / 3, "rank 0's close took " + tookMs + " ms; its calls time out after "
                        + CALL_TIMEOUT_MS + " ms, the join after " + JOIN_TIMEOUT_MS + " ms");
            } finally {
                jobMap.unlock(BARRIER);
            }
            stores.get(1).close();
            for (HazelcastInstance m : members) {
                for (DistributedObject o : m.getDistributedObjects()) {
                    assertFalse(o.getName().startsWith(ClusterNode.MAP_PREFIX + JOB), "rank 0 could not end its "
                            + "rounds but still marked its rank closed, so the last closer destroys " + o.getName());
                }
            }
        } finally {
            members.forEach(HazelcastInstance::shutdown);
        }
    }
}
