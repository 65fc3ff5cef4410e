package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once a rank is gone, the calls that need it fail at once, naming it, the key and the round: a lost
 * rank ({@code dist_sync}: without a call to the key's owner, so a worker's queued epochs do not each
 * make one), and a rank that closed its store normally (the barriers it will never reach).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AfterALossTest {
    /** What a call that fails on the worker, without calling the key's owner, says. */
    private static final String AT_ONCE = "failed without calling the key's owner";
    private final TestCluster cluster = new TestCluster(2);
    private final List<HazelcastInstance> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.forEach(HazelcastInstance::shutdown);
    }

    private List<Table> tables(Map<String, String> extra) {
        members.addAll(cluster.startMembers(2, extra));
        return TestCluster.parallel(2, r -> new Table(members.get(r), cluster.settings(r, extra), r, 2, false));
    }

    @Test
    void onceARankIsKnownLostTheCallsThatNeedItFailAtOnceNamingItTheKeyAndTheRound() throws Exception {
        List<Table> t = tables(Map.of("splitFloats", "2")); // "s" has 3 chunks
        for (Table x : t) {
            x.init("k", new float[2]).join();
            x.init("s", new float[5]).join();
            x.push("k", 1, new float[] {1, 1}, null).join();
            x.push("s", 1, new float[] {1, 1, 1, 1, 1}, null).join();
        }
        t.get(1).push("k", 2, new float[] {2, 2}, null).join(); // rank 1's last push: round 2 can still complete
        CompletableFuture<float[]> pending = t.get(0).pull("k", 3);

        members.get(1).getLifecycleService().terminate(); // a crash

        ExecutionException first = assertThrows(ExecutionException.class, () -> pending.get(30, TimeUnit.SECONDS));
        assertNames(first.getCause(), "'k'", "round 3");

        t.get(0).push("k", 2, new float[] {3, 3}, null).get(10, TimeUnit.SECONDS);
        assertArrayEquals(new float[] {5, 5}, t.get(0).pull("k", 2).get(10, TimeUnit.SECONDS), "round 2 had rank 1's push");

        assertFailsAtOnce(t.get(0).push("k", 3, new float[] {1, 1}, null), "'k'", "push round 3");
        assertFailsAtOnce(t.get(0).pull("k", 3), "'k'", "pull round 3");
        assertFailsAtOnce(t.get(0).push("s", 2, new float[5], null), "'s'", "push round 2");
        // A barrier has no key and no round of one: its failure says so (it named "no round of this key after 0").
        assertFailsAtOnce(t.get(0).barrier(), "the barrier cannot complete without every worker", "barrier 1");
        assertFalse(barrierFailure(t.get(0)).contains("round of this key"));
        t.get(0).init("late", new float[2]).join(); // initialised after the loss: its owner learns of it on the first call
        assertFailsAtOnce(t.get(0).push("late", 1, new float[2], null), "'late'", "push round 1");

        // A thousand queued epochs: each fails on the worker.
        List<CompletableFuture<?>> epochs = new ArrayList<>();
        for (int round = 4; round < 1004; round++) {
            epochs.add(t.get(0).push("s", round, new float[5], null));
            epochs.add(t.get(0).pull("s", round));
        }
        for (CompletableFuture<?> e : epochs) {
            assertFailsAtOnce(e, "'s'", "round");
        }
        t.get(0).close();
    }

    @Test
    void aBarrierFailsAtOnceNamingAWorkerThatClosedNormallyBeforeReachingIt() throws Exception {
        List<Table> t = tables(Map.of());
        CompletableFuture<Void> ranOne = t.get(1).barrier(); // rank 1 reaches barrier 1, then closes
        t.get(1).close();
        assertThrows(ExecutionException.class, () -> ranOne.get(10, TimeUnit.SECONDS), "closed under it");

        t.get(0).barrier().get(10, TimeUnit.SECONDS); // rank 1 came to this one
        ExecutionException e = assertThrows(ExecutionException.class, () -> t.get(0).barrier().get(10, TimeUnit.SECONDS));
        String m = e.getCause().getMessage();
        assertTrue(e.getCause() instanceof KVStoreException
                && m.contains("rank 1 closed its store normally; a barrier needs all 2 workers") && m.contains("barrier 2"), m);
        t.get(0).close();
    }

    private static String barrierFailure(Table t) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> t.barrier().get(10, TimeUnit.SECONDS));
        return e.getCause().getMessage();
    }

    private static void assertFailsAtOnce(CompletableFuture<?> call, String key, String what) {
        // Bounded far below the 20 s call timeout; the message says no call was made.
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
        assertNames(e.getCause(), key, what);
        assertTrue(e.getCause().getMessage().contains(AT_ONCE), e.getCause().getMessage());
    }

    private static void assertNames(Throwable err, String key, String what) {
        String m = err.getMessage();
        assertTrue(err instanceof KVStoreException && m.contains("worker rank 1") && m.contains("left the cluster")
                && m.contains(key) && m.contains(what), m);
    }
}
