package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryUpdatedListener;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;

import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.ToldRanks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** The round client (updateOn=server, dist_async, barriers): rounds, ordering, chunks, init races and end of data, on one 3-member loopback cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoundClientTest {
    private static final int N = 3;
    private final TestCluster cluster = new TestCluster(N);
    private List<HazelcastInstance> members;

    @BeforeAll
    void form() {
        members = cluster.startMembers(N, Map.of());
    }

    @AfterAll
    void stop() {
        if (members != null) {
            members.forEach(HazelcastInstance::shutdown);
        }
    }

    private List<Table> tables(TestInfo info, boolean async, Map<String, String> extra) {
        String name = info.getTestMethod().orElseThrow().getName();
        return TestCluster.parallel(N, r -> {
            Map<String, String> p = new java.util.HashMap<>(extra);
            p.put("jobId", name);
            ClusterSettings s = cluster.settings(r, p);
            return new Table(members.get(r), s, r, N, async);
        });
    }

    private static void initAll(List<Table> t, String key, float[] value) {
        for (Table x : t) {
            x.init(key, value).join();
        }
    }

    @Test
    void aRoundSumsTheRanksInRankOrderWhateverTheArrivalOrder(TestInfo info) {
        List<Table> t = tables(info, false, Map.of());
        initAll(t, "w", new float[] {10, 20});
        // In float, (1e8 + 1) - 1e8 = 0 but 1e8 + (1 - 1e8) = 1e8 - 1e8 + ... : only rank order gives 0 here.
        float[][] grads = {{1e8f, 1}, {1, 2}, {-1e8f, 3}};
        for (int r = N - 1; r >= 0; r--) { // arrive in reverse rank order
            t.get(r).push("w", 1, grads[r], Updater.sgd(0.5f)).join();
        }
        float sum0 = (1e8f + 1f) + -1e8f;
        float[] expected = {10 - 0.5f * sum0, 20 - 0.5f * 6};
        assertEquals(0f, sum0);
        for (Table x : t) {
            assertArrayEquals(expected, x.pull("w", 1).join());
        }
        t.forEach(Table::close);
    }

    @Test
    void aPullWaitsUntilItsRoundCompletes(TestInfo info) {
        List<Table> t = tables(info, false, Map.of());
        initAll(t, "w", new float[] {0, 0, 0});
        CompletableFuture<float[]> pull = t.get(1).pull("w", 1);
        t.get(0).push("w", 1, new float[] {1, 1, 1}, null).join();
        t.get(1).push("w", 1, new float[] {2, 2, 2}, null).join();
        assertFalse(pull.isDone(), "round 1 cannot complete before rank 2 pushes");
        t.get(2).push("w", 1, new float[] {4, 4, 4}, null).join();
        assertArrayEquals(new float[] {7, 7, 7}, pull.join()); // no updater: the stored value becomes the sum
        t.forEach(Table::close);
    }

    /**
     * Each round, the ranks push and pull in turn: the pulls of the ranks that pushed before the round
     * completed wait on the owner and get the round's value; the rank whose push completed the round gets
     * it from its push's reply, with no call (its pull is done at once). A split key's chunks too.
     */
    @Test
    void waitingPullsAndThePushThatCompletesTheRoundGetTheRoundsValue(TestInfo info) {
        List<Table> t = tables(info, false, Map.of("splitFloats", "2"));
        initAll(t, "w", new float[] {1, 2, 3});
        float[] oracle = {1, 2, 3};
        for (int round = 1; round <= 4; round++) {
            List<CompletableFuture<float[]>> pulls = new java.util.ArrayList<>();
            for (int i = 0; i < N; i++) {
                int r = (round + i) % N; // a different rank completes each round
                float[] g = {r + round, 2 * r, -round};
                for (int j = 0; j < oracle.length; j++) {
                    oracle[j] -= 0.5f * g[j];
                }
                t.get(r).push("w", round, g, Updater.sgd(0.5f)).join();
                CompletableFuture<float[]> pull = t.get(r).pull("w", round);
                assertEquals(i == N - 1, pull.isDone(), "round " + round + ", rank " + r + " pushed " + (i + 1)
                        + "th: its pull is done at once exactly when its push completed the round");
                pulls.add(pull);
            }
            for (CompletableFuture<float[]> p : pulls) {
                assertArrayEquals(oracle, p.join(), "round " + round);
            }
        }
        t.forEach(Table::close);
    }

    /**
     * A push read from a buffer and a pull written into one move a split key's chunks as the array forms
     * do: the buffer's indices count from 0 whatever its position, and a pull that fails leaves its target
     * as it was.
     */
    @Test
    void aPushFromABufferAndAPullIntoOneMoveEveryChunk(TestInfo info) {
        List<Table> t = tables(info, false, Map.of("splitFloats", "2")); // 3 chunks
        initAll(t, "b", new float[5]);
        for (int r = 0; r < N; r++) {
            FloatBuffer g = FloatBuffer.wrap(new float[] {1 + r, 2, 3, 4, 5 * r});
            g.position(3);
            t.get(r).push("b", 1, g, null, "round 1").join();
        }
        FloatBuffer target = FloatBuffer.allocate(5);
        t.get(0).pull("b", 1, "round 1", target).join();
        assertArrayEquals(new float[] {6, 6, 9, 12, 15}, target.array(), "the sum of the 3 pushes");
        t.get(1).close();
        FloatBuffer untouched = FloatBuffer.wrap(new float[] {7, 7, 7, 7, 7});
        CompletableFuture<Void> failed = t.get(1).pull("b", 1, "round 1", untouched);
        assertInstanceOf(KVStoreException.class, assertThrows(CompletionException.class, failed::join).getCause());
        assertArrayEquals(new float[] {7, 7, 7, 7, 7}, untouched.array(), "a failed pull writes nothing");
        t.forEach(Table::close);
    }

    /**
     * A completed round is told (with its state) to the ranks that wait for it only: here the rank whose
     * push left it pending. Rank 2, which has no data in the period, is sent no event, and still reads the
     * round late. Each round has its own learning rate, so an updater is never taken for another.
     */
    @Test
    void onlyTheRanksThatWaitAreToldOfARoundAndALateRankStillReadsIt(TestInfo info) throws Exception {
        List<Table> t = tables(info, false, Map.of());
        initAll(t, "w", new float[] {0});
        t.get(2).endOfData().join();
        IMap<String, KeyState> map = members.get(0).getMap(ClusterNode.MAP_PREFIX + info.getTestMethod().orElseThrow().getName());
        AtomicIntegerArray told = new AtomicIntegerArray(N);
        // Events of one key reach a listener in order: each rank's last one is the fence below (it tells every rank).
        List<CountDownLatch> fenced = List.of(new CountDownLatch(2), new CountDownLatch(3), new CountDownLatch(1));
        for (int r = 0; r < N; r++) {
            int rank = r;
            map.addEntryListener((EntryUpdatedListener<String, KeyState>) e -> {
                told.incrementAndGet(rank);
                fenced.get(rank).countDown();
            }, ToldRanks.withValue(rank), true);
        }
        float[] oracle = {0};
        for (int round = 1; round <= 3; round++) {
            int first = round % 2;
            int second = 1 - first;
            t.get(first).push("w", round, new float[] {1}, Updater.sgd(round)).join();
            CompletableFuture<float[]> waiting = t.get(first).pull("w", round);
            assertFalse(waiting.isDone(), "round " + round + " waits for rank " + second);
            t.get(second).push("w", round, new float[] {2}, Updater.sgd(round)).join();
            oracle[0] -= 3 * round;
            assertArrayEquals(oracle, waiting.get(30, TimeUnit.SECONDS), "round " + round + ", the waiting rank");
            assertArrayEquals(oracle, t.get(second).pull("w", round).join(), "round " + round + ", the completing rank");
        }
        assertArrayEquals(oracle, t.get(2).pull("w", 3).join(), "rank 2 reads round 3 late");
        t.get(1).endOfData().join(); // the fence
        for (CountDownLatch f : fenced) {
            assertTrue(f.await(30, TimeUnit.SECONDS), "every rank's events arrive");
        }
        assertEquals("[1, 2, 0]", List.of(told.get(0) - 1, told.get(1) - 1, told.get(2) - 1).toString(),
                "the rounds each rank was told of (rank 0 waited for round 2, rank 1 for rounds 1 and 3)");
        t.forEach(Table::close);
    }

    @Test
    void aRetriedOrLatePushChangesNothing(TestInfo info) {
        List<Table> t = tables(info, false, Map.of());
        initAll(t, "w", new float[] {100});
        t.get(0).push("w", 1, new float[] {1}, Updater.sgd(1)).join();
        t.get(0).push("w", 1, new float[] {1}, Updater.sgd(1)).join(); // retried: the same slot again
        t.get(1).push("w", 1, new float[] {2}, Updater.sgd(1)).join();
        t.get(2).push("w", 1, new float[] {4}, Updater.sgd(1)).join();
        assertArrayEquals(new float[] {93}, t.get(0).pull("w", 1).join());
        t.get(2).push("w", 1, new float[] {4}, Updater.sgd(1)).join(); // round 1 is over: ignored
        assertArrayEquals(new float[] {93}, t.get(1).pull("w", 1).join());
        t.forEach(Table::close);
    }

    @Test
    void pullsAndPushesThatRaceRankZerosInitSeeTheInit(TestInfo info) {
        List<Table> t = tables(info, false, Map.of());
        t.get(1).init("w", new float[2]).join();
        t.get(2).init("w", new float[2]).join();
        CompletableFuture<float[]> early1 = t.get(1).pull("w", 0);
        CompletableFuture<float[]> early2 = t.get(2).pull("w", 0);
        t.get(1).push("w", 1, new float[] {1, 1}, Updater.sgd(1)).join();
        t.get(2).push("w", 1, new float[] {1, 1}, Updater.sgd(1)).join();
        assertFalse(early1.isDone(), "a pull of round 0 must wait for rank 0's init, not read a default");
        t.get(0).init("w", new float[] {5, 6}).join();
        assertArrayEquals(new float[] {5, 6}, early1.join());
        assertArrayEquals(new float[] {5, 6}, early2.join());
        t.get(0).push("w", 1, new float[] {1, 1}, Updater.sgd(1)).join();
        assertArrayEquals(new float[] {2, 3}, t.get(0).pull("w", 1).join());
        t.get(0).init("w", new float[] {0, 0}).join(); // a second init never overwrites
        assertArrayEquals(new float[] {2, 3}, t.get(2).pull("w", 1).join());
        t.forEach(Table::close);
    }

    @Test
    void aLongKeyIsSplitIntoChunksAndReassembled(TestInfo info) {
        List<Table> t = tables(info, false, Map.of("splitFloats", "4"));
        float[] init = new float[10];
        for (int i = 0; i < init.length; i++) {
            init[i] = i;
        }
        initAll(t, "big", init);
        float[] g = new float[10];
        java.util.Arrays.fill(g, 1);
        for (Table x : t) {
            x.push("big", 1, g, Updater.sgd(1)).join();
        }
        float[] expected = new float[10];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = i - 3;
        }
        assertArrayEquals(expected, t.get(1).pull("big", 1).join());
        t.forEach(Table::close);
    }

    /**
     * A risk from reading the code, confirmed: a user key {@code name#1} was stored under the map key of
     * chunk 1 of a split key {@code name}, so the two shared one value.
     */
    @Test
    void aKeyNamedLikeAChunkOfASplitKeyIsAKeyOfItsOwn(TestInfo info) {
        List<Table> t = tables(info, false, Map.of("splitFloats", "4"));
        initAll(t, "w", new float[] {1, 1, 1, 1, 2, 2, 2, 2});
        initAll(t, "w#1", new float[] {7, 7, 7, 7});
        assertArrayEquals(new float[] {7, 7, 7, 7}, t.get(1).pull("w#1", 0).join(), "the key 'w#1'");
        assertArrayEquals(new float[] {1, 1, 1, 1, 2, 2, 2, 2}, t.get(1).pull("w", 0).join(), "the split key 'w'");
        t.forEach(Table::close);
    }

    @Test
    void endOfDataLetsTheOtherRanksFinishTheirRounds(TestInfo info) {
        List<Table> t = tables(info, false, Map.of());
        initAll(t, "w", new float[] {0});
        for (Table x : t) {
            x.push("w", 1, new float[] {1}, null).join();
        }
        t.get(2).endOfData().join(); // rank 2 has one batch fewer
        CompletableFuture<float[]> pull = t.get(0).pull("w", 2);
        t.get(0).push("w", 2, new float[] {10}, null).join();
        t.get(1).push("w", 2, new float[] {20}, null).join();
        assertArrayEquals(new float[] {30}, pull.join());
        CompletionException e = assertThrows(CompletionException.class,
                () -> t.get(2).push("w", 2, new float[] {1}, null).join());
        assertTrue(e.getCause().getMessage().contains("after signalling its end of data"), e.getCause().getMessage());
        t.forEach(Table::close);
    }

    @Test
    void asyncAppliesEachPushAsItArrives(TestInfo info) {
        List<Table> t = tables(info, true, Map.of());
        initAll(t, "w", new float[] {0});
        t.get(1).push("w", 1, new float[] {2}, Updater.sgd(1)).join();
        assertArrayEquals(new float[] {-2}, t.get(1).pull("w", 0).join());
        t.get(2).push("w", 1, new float[] {3}, Updater.sgd(1)).join();
        assertArrayEquals(new float[] {-5}, t.get(0).pull("w", 0).join());
        t.forEach(Table::close);
    }

    /**
     * A risk from reading the code, confirmed: {@code dist_async} applied a push as often as it arrived,
     * so a call that Hazelcast retries on the key's new owner (its first try applied there through the
     * backup) counted twice. Each rank's push of a round is applied once.
     */
    @Test
    void aRetriedAsyncPushIsAppliedOnce(TestInfo info) {
        List<Table> t = tables(info, true, Map.of());
        initAll(t, "w", new float[] {0});
        t.get(1).push("w", 1, new float[] {2}, Updater.sum()).join();
        t.get(1).push("w", 1, new float[] {2}, Updater.sum()).join(); // the same call again
        t.get(2).push("w", 1, new float[] {3}, Updater.sum()).join();
        t.get(1).push("w", 2, new float[] {4}, Updater.sum()).join();
        assertArrayEquals(new float[] {9}, t.get(0).pull("w", 0).join(), "2 + 3 + 4, each once");
        t.forEach(Table::close);
    }

    /** Deliver 7 of issue 26: workers of one job that count different numbers of workers. */
    @Test
    void aWorkerWithAnotherNumberOfWorkersIsRefusedAtOpenNamingBoth(TestInfo info) throws Exception {
        String job = info.getTestMethod().orElseThrow().getName();
        java.util.concurrent.CountDownLatch counted = new java.util.concurrent.CountDownLatch(1);
        members.get(0).getMap(ClusterNode.MAP_PREFIX + job + ".shared").addEntryListener(
                (com.hazelcast.map.listener.EntryAddedListener<Object, Object>) e -> counted.countDown(), false);
        Map<String, String> p = Map.of("jobId", job, "joinTimeoutMs", "3000");
        java.util.concurrent.CompletableFuture<Table> first = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> new Table(members.get(0), cluster.settings(0, p), 0, 2, false));
        assertTrue(counted.await(30, java.util.concurrent.TimeUnit.SECONDS), "the first worker never set the job's count");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new Table(members.get(1), cluster.settings(1, p), 1, 3, false));
        assertTrue(refused.getMessage().contains("numWorkers=3") && refused.getMessage().contains("numWorkers=2")
                && refused.getMessage().contains("rank 1"), refused.getMessage());
        // the first one waits for a rank 1 of 2 that never comes
        assertThrows(java.util.concurrent.CompletionException.class, first::join);
    }

    /** Deliver 5 of issue 26: every worker of a resumed job resumes, or none; rank 0's period reaches the others. */
    @Test
    void aWorkerThatDoesNotResumeWhileRankZeroDoesIsRefusedNamingBoth(TestInfo info) {
        String job = info.getTestMethod().orElseThrow().getName();
        List<Object> opened = TestCluster.parallel(2, r -> {
            try {
                return new Table(members.get(r), cluster.settings(r, Map.of("jobId", job)), r, 2, false,
                        r == 0 ? 4 : null);
            } catch (RuntimeException e) {
                return e;
            }
        });
        Table rank0 = assertInstanceOf(Table.class, opened.get(0));
        assertEquals(4, rank0.resumedPeriod());
        IllegalArgumentException refused = assertInstanceOf(IllegalArgumentException.class, opened.get(1));
        assertTrue(refused.getMessage().contains("rank 1") && refused.getMessage().contains("without depengine.kvstore.resume")
                && refused.getMessage().contains("rank 0 with it (a checkpoint of period 4)"), refused.getMessage());
        rank0.close();

        List<Table> both = TestCluster.parallel(2, r -> new Table(members.get(r),
                cluster.settings(r, Map.of("jobId", job + "-both")), r, 2, false, r == 0 ? 4 : 0));
        assertEquals(4, both.get(1).resumedPeriod(), "rank 1 learns the period rank 0 read");
        both.forEach(Table::close);
    }

    @Test
    void badCallsFailNamingKeyAndShape(TestInfo info) {
        List<Table> t = tables(info, false, Map.of());
        t.get(0).init("w", new float[3]).join();
        t.get(1).init("w", new float[4]).join(); // disagrees with rank 0
        t.get(2).init("w", new float[3]).join();
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> t.get(0).pull("nope", 1));
        assertTrue(unknown.getMessage().contains("unknown key 'nope'"), unknown.getMessage());
        IllegalArgumentException local = assertThrows(IllegalArgumentException.class,
                () -> t.get(0).push("w", 1, new float[2], null));
        assertTrue(local.getMessage().contains("it holds 3"), local.getMessage());
        CompletionException remote = assertThrows(CompletionException.class,
                () -> t.get(1).push("w", 1, new float[4], null).join());
        assertTrue(remote.getCause() instanceof KVStoreException);
        assertTrue(remote.getCause().getMessage().contains("shape mismatch on key 'w'")
                && remote.getCause().getMessage().contains("rank 1"), remote.getCause().getMessage());
        t.forEach(Table::close);
        CompletionException closed = assertThrows(CompletionException.class, () -> t.get(0).pull("w", 1).join());
        assertTrue(closed.getCause().getMessage().contains("closed"), closed.getCause().getMessage());
    }

}
