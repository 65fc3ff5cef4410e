package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker that closes normally (its embedded member leaves with it) is not reported as lost: the
 * other worker's later rounds complete without it instead of failing with "left the cluster".
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NormalCloseTest {
    @Test
    void aWorkerThatClosesNormallyIsNotReportedLostAndTheRoundsGoOnWithoutIt() throws Exception {
        TestCluster cluster = new TestCluster(2);
        HazelcastInstance member0 = cluster.startMembers(1, Map.of()).get(0); // rank 0's, watched by the test
        CountDownLatch left = new CountDownLatch(1);
        member0.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent e) {
            }

            @Override
            public void memberRemoved(MembershipEvent e) {
                left.countDown();
            }
        });
        try (Engine e0 = Engine.create("perdevice"); Engine e1 = Engine.create("perdevice")) {
            List<KVStore> stores = TestCluster.parallel(2, r -> r == 0
                    ? HazelcastKVStoreProvider.open(e0, "dist_sync", cluster.storeSettings(0, Map.of()), member0)
                    : KVStore.open(e1, "dist_sync", cluster.storeSettings(1, Map.of()))); // owns its member
            KVStore s0 = stores.get(0);
            KVStore s1 = stores.get(1);
            DeviceArray w0 = WorkerKillTest.array(e0, "w0");
            DeviceArray w1 = WorkerKillTest.array(e1, "w1");
            for (KVStore s : stores) {
                s.setUpdater(Updater.sum());
            }
            WorkerKillTest.write(e0, w0, 0);
            s0.init("k", w0);
            WorkerKillTest.write(e1, w1, 0);
            s1.init("k", w1);
            WorkerKillTest.write(e0, w0, 1);
            s0.push("k", w0);
            WorkerKillTest.write(e1, w1, 2);
            s1.push("k", w1);
            s1.pull("k", w1);
            e1.waitForVar(w1.var(), Duration.ofSeconds(60));

            s1.close(); // normally, after its last round: its member leaves the cluster
            assertTrue(left.await(30, TimeUnit.SECONDS), "rank 1's member never left");

            s0.pull("k", w0);
            assertArrayEquals(new float[] {3, 3, 3, 3}, ChildWorker.read(e0, w0), "round 1: both pushes");
            WorkerKillTest.write(e0, w0, 10);
            s0.push("k", w0);
            s0.pull("k", w0);
            assertArrayEquals(new float[] {13, 13, 13, 13}, ChildWorker.read(e0, w0), "round 2, without the worker that closed");
            s0.close();
        } finally {
            member0.shutdown();
        }
    }
}
