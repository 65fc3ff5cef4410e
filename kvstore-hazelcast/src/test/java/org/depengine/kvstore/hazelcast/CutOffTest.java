package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.cluster.ShardedTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker whose side of the cluster keeps only part of the job's keys (the members holding every copy
 * of some partitions left at once, as when its host is cut off): it fails its waiting reads and every
 * later call at once, naming the ranks it lost contact with, instead of waiting for the call timeout.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CutOffTest {
    private static final int N = 3;
    private final TestCluster cluster = new TestCluster(N);
    private final List<HazelcastInstance> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.forEach(HazelcastInstance::shutdown);
    }

    @Test
    void aWorkerLeftWithPartOfTheKeysFailsItsCallsNamingTheRanksItLostContactWith() throws Exception {
        members.addAll(cluster.startMembers(N, Map.of()));
        List<ShardedTable> t = TestCluster.parallel(N, r -> new ShardedTable(members.get(r), cluster.settings(r, Map.of()), r, N, false));
        ShardedTable alone = t.get(2);
        for (ShardedTable x : t) {
            x.init("k", new float[2]).join();
        }
        alone.push("k", 1, new float[] {1, 1}, null).join();
        CompletableFuture<float[]> pending = alone.pull("k", 1);

        // Both at once: the partitions whose two copies were on members 0 and 1 are lost to member 2.
        TestCluster.parallel(2, r -> {
            members.get(r).getLifecycleService().terminate();
            return null;
        });

        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof KVStoreException && namesRankZeroOrOne(e.getCause().getMessage()),
                e.getCause().getMessage());
        // Then every call fails at once, even one that needs no other worker (an end of data), once the
        // lost partitions are known (Hazelcast reports them shortly after the members' departure).
        String refused = null;
        while (refused == null) {
            try {
                alone.endOfData().join();
            } catch (CompletionException c) {
                refused = c.getCause().getMessage();
            }
        }
        assertTrue(refused.contains("worker rank 0 (member ") && refused.contains("worker rank 1 (member ")
                && refused.contains("left the cluster, and with them every copy of partition ")
                && refused.contains("cut off"), refused);
        alone.close();
    }

    private static boolean namesRankZeroOrOne(String m) {
        return m.matches("(?s).*\\brank [01]\\b.*");
    }
}
