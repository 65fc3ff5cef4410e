package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two workers that each started their own member close in the order that leaves Hazelcast nothing of
 * theirs to warn about ({@code LeavingOrder}): the master's member shuts down only once the other member
 * has left, and by then the job's maps are destroyed, whichever worker closes first or when both close at
 * once. Without the order, a master that closes first shuts down while the other member is there (the
 * other then suspects it dead and claims its mastership), and a last closer destroys the maps on a member
 * that is shutting down.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CloseOrderTest {
    /** What a member saw as it began to shut down. */
    private record AtShutdown(boolean master, int members, boolean jobMapsLeft) {
    }

    @Test
    void aMasterThatClosesFirstShutsDownAfterTheOtherMemberLeft() throws Exception {
        closeAndCheck(true);
    }

    @Test
    void workersClosingTogetherLeaveTheMasterLastAndTheMapsDestroyed() throws Exception {
        closeAndCheck(false);
    }

    private static void closeAndCheck(boolean masterFirst) throws Exception {
        TestCluster cluster = new TestCluster(2);
        try (Engine e0 = Engine.create("perdevice"); Engine e1 = Engine.create("perdevice")) {
            List<Engine> engines = List.of(e0, e1);
            List<KVStore> stores = TestCluster.parallel(2, r -> KVStore.open(engines.get(r), "dist_sync",
                    cluster.storeSettings(r, Map.of()))); // each owns its member
            oneRound(engines, stores);
            Map<Integer, HazelcastInstance> byRank = instances(cluster);
            Map<Integer, AtShutdown> seen = new ConcurrentHashMap<>();
            byRank.forEach((rank, hz) -> hz.getLifecycleService().addLifecycleListener(ev -> {
                if (ev.getState() == LifecycleEvent.LifecycleState.SHUTTING_DOWN) {
                    seen.put(rank, new AtShutdown(hz.getCluster().getMembers().iterator().next().localMember(),
                            hz.getCluster().getMembers().size(), jobMapsLeft(hz)));
                }
            }));
            int master = byRank.get(0).getCluster().getMembers().iterator().next().localMember() ? 0 : 1;
            if (masterFirst) {
                CompletableFuture<Void> first = CompletableFuture.runAsync(() -> stores.get(master).close());
                awaitClosed(byRank.get(1 - master), master);
                stores.get(1 - master).close();
                first.get(30, TimeUnit.SECONDS);
            } else {
                TestCluster.parallel(2, r -> {
                    stores.get(r).close();
                    return null;
                });
            }
            AtShutdown m = seen.get(master);
            assertNotNull(m, "the master's member never shut down");
            assertTrue(m.master(), "rank " + master + "'s member was the master as it shut down");
            assertEquals(1, m.members(), "the master shut down while the other member was still in the cluster");
            assertFalse(m.jobMapsLeft(), "the job's maps were not destroyed before the last member left");
            assertNotNull(seen.get(1 - master), "the other member never shut down");
        }
    }

    /** Round 1 of one key on both workers, so that the job's maps hold state. */
    private static void oneRound(List<Engine> engines, List<KVStore> stores) {
        for (int r = 0; r < 2; r++) {
            DeviceArray w = WorkerKillTest.array(engines.get(r), "w" + r);
            KVStore s = stores.get(r);
            s.setUpdater(Updater.sum());
            WorkerKillTest.write(engines.get(r), w, r + 1);
            s.init("k", w);
            s.push("k", w);
            s.pull("k", w);
        }
        for (int r = 0; r < 2; r++) {
            DeviceArray probe = WorkerKillTest.array(engines.get(r), "probe" + r);
            stores.get(r).pull("k", probe);
            engines.get(r).waitForVar(probe.var(), Duration.ofSeconds(60));
        }
    }

    /** The members the two stores started, by rank (a member's port is its rank's). */
    private static Map<Integer, HazelcastInstance> instances(TestCluster cluster) {
        Map<Integer, HazelcastInstance> byRank = new ConcurrentHashMap<>();
        for (HazelcastInstance hz : Hazelcast.getAllHazelcastInstances()) {
            if (cluster.clusterName.equals(hz.getConfig().getClusterName())) {
                byRank.put(cluster.ports.indexOf(hz.getCluster().getLocalMember().getAddress().getPort()), hz);
            }
        }
        assertEquals(2, byRank.size(), "the two stores' members, found by their cluster's name: " + byRank.keySet());
        return byRank;
    }

    private static boolean jobMapsLeft(HazelcastInstance hz) {
        return !TestCluster.jobMaps(hz).isEmpty();
    }

    /** Waits until rank {@code rank} has marked itself closed in the job's ranks map (read through {@code hz}). */
    private static void awaitClosed(HazelcastInstance hz, int rank) {
        Map<Integer, String> ranks = hz.getMap(ClusterNode.MAP_PREFIX + "default" + ClusterNode.RANKS_SUFFIX);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!String.valueOf(ranks.get(rank)).startsWith("closed ")) {
            assertTrue(System.nanoTime() < deadline, "rank " + rank + " never marked itself closed");
            LockSupport.parkNanos(1_000_000); // a poll of another process's state, not a stand-in for a signal
        }
    }
}
