package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member crashes (terminated without a graceful shutdown, as a killed process): the rounds it will
 * never push fail at once on the others, naming it; its keys live on in their backups, and a member
 * started in its place reads every weight. Two members lost at once take every copy of some partitions
 * with them: the worker left alone fails all its calls.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MemberLossTest {
    private static final int N = 3;
    private static final int KEYS = 40; // enough that every member owns some
    private final TestCluster cluster = new TestCluster(N);
    private final List<HazelcastInstance> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.forEach(HazelcastInstance::shutdown);
    }

    @Test
    void aLostMemberFailsTheOpenRoundsNamingItAndARestartedOneFindsEveryWeight() throws Exception {
        members.addAll(cluster.startMembers(N, Map.of()));
        List<Table> t = TestCluster.parallel(N, r -> new Table(members.get(r), cluster.settings(r, Map.of()), r, N, false));
        for (int k = 0; k < KEYS; k++) {
            for (Table x : t) {
                x.init("k" + k, new float[] {k, k}).join();
            }
            for (Table x : t) {
                x.push("k" + k, 1, new float[] {1, 2}, Updater.sgd(1)).join();
            }
        }
        t.get(0).push("k7", 2, new float[] {1, 1}, null).join();
        t.get(1).push("k7", 2, new float[] {1, 1}, null).join();
        CompletableFuture<float[]> pending0 = t.get(0).pull("k7", 2);
        CompletableFuture<float[]> pending1 = t.get(1).pull("k7", 2);

        members.get(2).getLifecycleService().terminate(); // a crash: no goodbye, no migration first

        for (CompletableFuture<float[]> p : List.of(pending0, pending1)) {
            // Bounded well below the 20 s call timeout: the failure must come from the membership listener.
            ExecutionException e = assertThrows(ExecutionException.class, () -> p.get(10, TimeUnit.SECONDS));
            String m = e.getCause().getMessage();
            assertTrue(e.getCause() instanceof KVStoreException, m);
            assertTrue(m.contains("worker rank 2") && m.contains("left the cluster") && m.contains("key 'k7'")
                    && m.contains("round 2"), m);
        }
        // The loss reaches each key's owner on its own (every survivor reports it to every key), so
        // the failed pulls of k7 above do not order it before this push to k8's owner: the push is
        // refused naming the rank if the loss got there first, else it lands in a round the loss
        // then fails. A pull of that round fails naming the rank either way. (Asserting that the
        // push itself fails was a race of the test's own: it failed once in CI on JDK 25.)
        try {
            t.get(0).push("k8", 2, new float[] {1, 1}, null).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException refused) {
            assertTrue(refused.getCause().getMessage().contains("worker rank 2"), refused.getCause().getMessage());
        }
        ExecutionException round2 = assertThrows(ExecutionException.class,
                () -> t.get(0).pull("k8", 2).get(10, TimeUnit.SECONDS));
        String m2 = round2.getCause().getMessage();
        assertTrue(round2.getCause() instanceof KVStoreException && m2.contains("worker rank 2")
                && m2.contains("left the cluster") && m2.contains("key 'k8'"), m2);

        // Restart: a fresh member on the dead one's port joins; every key's round 1 is intact.
        members.set(2, ClusterNode.start(cluster.settings(2, Map.of())));
        Table restarted = new Table(members.get(2), cluster.settings(2, Map.of()), 2, N, false);
        for (int k = 0; k < KEYS; k++) {
            float[] expected = {k - 3, k - 6}; // k - (1 + 1 + 1), k - (2 + 2 + 2)
            restarted.init("k" + k, new float[2]).join();
            assertArrayEquals(expected, restarted.pull("k" + k, 1).get(10, TimeUnit.SECONDS), "key k" + k);
            assertArrayEquals(expected, t.get(0).pull("k" + k, 1).get(10, TimeUnit.SECONDS), "key k" + k);
        }
        restarted.close();
        t.forEach(Table::close);
    }

    /**
     * A worker whose side of the cluster keeps only part of the job's keys (the members holding every
     * copy of some partitions left at once, as when its host is cut off) fails its waiting reads and
     * every later call at once, naming the ranks it lost contact with, instead of waiting for the call
     * timeout.
     */
    @Test
    void aWorkerLeftWithPartOfTheKeysFailsItsCallsNamingTheRanksItLostContactWith() throws Exception {
        members.addAll(cluster.startMembers(N, Map.of()));
        List<Table> t = TestCluster.parallel(N, r -> new Table(members.get(r), cluster.settings(r, Map.of()), r, N, false));
        Table alone = t.get(2);
        for (Table x : t) {
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
