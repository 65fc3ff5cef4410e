package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;

import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.PushOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A risk from reading the code, confirmed: a worker lost in the middle of a push of a split key leaves
 * its chunks at different rounds (the chunk it reached completes the round, the other never can), and
 * a pull of an earlier round (what a worker that has not pushed reads) returned a value made of both,
 * [102, 102, 0, 0], that no round ever had. A pull now fails naming the lost worker instead.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SplitKeyLossTest {
    private final TestCluster cluster = new TestCluster(3);
    private final List<HazelcastInstance> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.forEach(m -> m.getLifecycleService().terminate());
    }

    @Test
    void aPullNeverMixesTheChunksOfDifferentRoundsAfterAWorkerIsLostMidPush() {
        members.addAll(cluster.startMembers(3, Map.of()));
        Map<String, String> extra = Map.of("splitFloats", "2", "jobId", "split");
        List<Table> t = TestCluster.parallel(3, r -> new Table(members.get(r), cluster.settings(r, extra),
                r, 3, false));
        for (Table x : t) {
            x.init("w", new float[] {0, 0, 0, 0}).join();
        }
        // Rank 2's push of round 1 reaches chunk 0 only, then rank 2 is lost.
        members.get(2).<String, KeyState>getMap(ClusterNode.MAP_PREFIX + "split").submitToKey("w#0",
                new PushOp("w", 0, 3, false, 2, 1, new float[] {100, 100}, null)).toCompletableFuture().join();
        members.get(2).getLifecycleService().terminate();
        for (int r = 0; r < 2; r++) {
            try {
                t.get(r).push("w", 1, new float[] {1, 1, 1, 1}, null).join(); // chunk 0 completes round 1 with it
            } catch (CompletionException refusedByChunk1) {
                assertTrue(refusedByChunk1.getCause().getMessage().contains("worker rank 2"), refusedByChunk1.getMessage());
            }
        }
        for (long round : new long[] {1, 0}) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> t.get(1).pull("w", round).get(30, TimeUnit.SECONDS), "pull of round " + round);
            String m = e.getCause().getMessage();
            assertTrue(m.contains("worker rank 2") && m.contains("left the cluster"), m);
        }
    }
}
