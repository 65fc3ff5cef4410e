package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.protocol.UpdatedValue;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Elastic jobs whose keys live on the members ({@code docs/elastic-design.md}, section 9): three workers on three
 * embedded members in this JVM, one of which is killed after a round.
 *
 * <p>{@code updateOn=server}, momentum SGD (its state lives on the keys' owners, with a backup), a small key (one
 * chunk) and a split one (six chunks on different owners); worker 2's member is killed once its push of round 4
 * was taken in, or without it. The serial model of "complete with the survivors": for each key, {@code L} is
 * the last round the lost worker's push reached (4, or 3); round {@code j}'s sum is the pushes of workers 0, 1 and
 * 2 for {@code j ≤ L}, of workers 0 and 1 after, each added in rank order, and the updater runs on each round's
 * sum in round order; {@code firstRoundOf} is {@code L + 1}. Every survivor's every pull equals it bit for bit
 * (value after round {@code j} = the model's after {@code j}), each survivor's listener is told once, and a
 * barrier after the loss passes.
 *
 * <p>{@code dist_async}: worker 0's member is killed; the survivors are told once (re-ranked 0 and 1), their
 * {@code rank()} and {@code numWorkers()} move, their pushes and pulls go on (every pull, after every worker's
 * pushes are in, is the sum of all pushes made, the lost worker's included), and a barrier passes. A joiner is
 * refused at open: these modes admit none yet.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ElasticServerTest {
    private static final int WORKERS = 3;
    private static final int ROUNDS = 7;
    private static final int KILLED_AFTER = 4;
    private static final Map<String, Integer> KEYS = new LinkedHashMap<>(Map.of("small", 3, "split", 24));
    private static final Map<String, String> ELASTIC = Map.of("elastic", "true", "minWorkers", "1", "splitFloats", "4");
    @RegisterExtension
    final JobParts job = new JobParts();
    private final List<HazelcastInstance> members = job.members;
    private final List<Engine> engines = job.engines;
    private final List<KVStore> stores = job.stores;

    @ParameterizedTest(name = "worker 2 pushed round 4 before it died: {0}")
    @ValueSource(booleans = {true, false})
    void survivorsCompleteTheOpenRoundsOnTheOwnersAsTheSerialModel(boolean lastPushed) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>(ELASTIC);
        settings.put("updateOn", "server");
        stores.addAll(ElasticJobs.open(new TestCluster(WORKERS), WORKERS, Map.of(), settings, members, engines));
        Updater updater = Updater.sgd(0.05f, 0.9f, 0.01f, 1f);
        List<List<Object[]>> told = listen();
        stores.forEach(s -> s.setUpdater(updater));
        Map<String, DeviceArray[]> arrays = ElasticJobs.init(KEYS, stores, engines, (key, r) -> Pushes.initial(key, KEYS.get(key)));
        List<Map<String, float[]>> pulled = new ArrayList<>(); // [round - 1] -> key -> the survivors' value
        int live = WORKERS;
        for (int round = 1; round <= ROUNDS; round++) {
            for (int r = 0; r < live; r++) {
                if (round == KILLED_AFTER && r == 2 && !lastPushed) {
                    continue;
                }
                for (String key : KEYS.keySet()) {
                    HostArrays.write(engines.get(r), arrays.get(key)[r], Pushes.gradient(r, round, key, KEYS.get(key)));
                    stores.get(r).push(key, arrays.get(key)[r]);
                }
            }
            if (round == KILLED_AFTER) {
                engines.get(2).waitForAll(Duration.ofSeconds(30)); // its pushes are taken in, by every chunk
                members.get(2).getLifecycleService().terminate(); // a crash
                live = 2;
            }
            Map<String, float[]> values = new LinkedHashMap<>();
            for (String key : KEYS.keySet()) {
                values.put(key, HostArrays.pullOnEach(stores, engines, IntStream.range(0, live).boxed().toList(), key,
                        arrays.get(key), KEYS.get(key), "after round " + round));
            }
            pulled.add(values);
        }
        MembershipChange change = toldOnce(told, List.of(0, 1), 2);
        for (String key : KEYS.keySet()) {
            long first = change.firstRoundOf().get(key);
            assertEquals(Rounds.of(0, lastPushed ? KILLED_AFTER + 1 : KILLED_AFTER), first,
                    key + "'s first round without worker 2: the one after its last push");
            UpdatedValue model = new UpdatedValue(Pushes.initial(key, KEYS.get(key)), new float[0], 0);
            for (int round = 1; round <= ROUNDS; round++) {
                model.apply(updater, key, Pushes.gradientSum(Rounds.of(0, round) < first ? List.of(0, 1, 2) : List.of(0, 1), round, key,
                        KEYS.get(key)));
                assertArrayEquals(model.value(), pulled.get(round - 1).get(key), key + " after round " + round
                        + " (first round without worker 2: " + Rounds.text(first) + ")");
            }
        }
        ElasticJobs.barrierOnEach(List.of(stores.get(0), stores.get(1)));
    }

    @Test
    void distAsyncGoesOnWithTheSurvivorsReRanked() throws Exception {
        TestCluster cluster = new TestCluster(WORKERS + 1); // the last port is a would-be joiner's
        Map<String, String> settings = new LinkedHashMap<>(ELASTIC);
        settings.put("numWorkers", Integer.toString(WORKERS));
        stores.addAll(ElasticJobs.open("dist_async", cluster, WORKERS, Map.of(), settings, members, engines));
        List<CountDownLatch> moved = new ArrayList<>();
        List<List<Object[]>> told = listen();
        for (int r = 0; r < WORKERS; r++) {
            CountDownLatch l = new CountDownLatch(1);
            moved.add(l);
            stores.get(r).onMembershipChange(c -> l.countDown());
            stores.get(r).setUpdater(Updater.sum());
        }
        Map<String, DeviceArray[]> arrays = ElasticJobs.init(KEYS, stores, engines, (key, r) -> new float[KEYS.get(key)]);
        Map<String, float[]> model = new LinkedHashMap<>();
        KEYS.forEach((key, n) -> model.put(key, new float[n]));
        List<Integer> live = List.of(0, 1, 2);
        for (int round = 1; round <= ROUNDS; round++) {
            for (int r : live) {
                for (String key : KEYS.keySet()) {
                    HostArrays.write(engines.get(r), arrays.get(key)[r], Pushes.small(r, round, KEYS.get(key)));
                    stores.get(r).push(key, arrays.get(key)[r]);
                }
            }
            for (int r : live) {
                engines.get(r).waitForAll(Duration.ofSeconds(30)); // every push made is applied at its owners
                for (String key : KEYS.keySet()) {
                    float[] g = Pushes.small(r, round, KEYS.get(key));
                    for (int i = 0; i < g.length; i++) {
                        model.get(key)[i] += g[i];
                    }
                }
            }
            if (round == KILLED_AFTER) {
                members.get(0).getLifecycleService().terminate(); // a crash of the first worker
                live = List.of(1, 2);
                for (int r : live) {
                    assertTrue(moved.get(r).await(60, TimeUnit.SECONDS), "worker " + r + " was told of the loss");
                    assertEquals(r - 1, stores.get(r).rank(), "worker " + r + "'s rank in the view without worker 0");
                    assertEquals(2, stores.get(r).numWorkers());
                }
            }
            for (String key : KEYS.keySet()) {
                assertArrayEquals(model.get(key), HostArrays.pullOnEach(stores, engines, live, key, arrays.get(key),
                        KEYS.get(key), "after round " + round), key + " after round " + round);
            }
        }
        ElasticJobs.barrierOnEach(List.of(stores.get(1), stores.get(2)));

        // A joiner (its own mode, dist_sync with updateOn=worker, admits joiners) is refused by this job at open.
        HazelcastInstance joinerMember = ClusterNode.start(cluster.settings(WORKERS, Map.of()));
        members.add(joinerMember);
        Engine e = Engine.create("perdevice");
        engines.add(e);
        Map<String, String> joiner = cluster.properties(WORKERS, Map.of("elastic", "true", "join", "true"));
        joiner.remove("rank");
        joiner.remove("numWorkers");
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        joiner.forEach(b::set);
        KVStoreException refused = assertThrows(KVStoreException.class, () -> HazelcastKVStoreProvider.open(e, "dist_sync",
                b.build(), joinerMember));
        assertTrue(refused.getMessage().contains("job 'default' admits no joiner: it runs dist_async, whose elastic jobs "
                + "go on without a lost worker but admit no worker yet"), refused.getMessage());
        MembershipChange change = toldOnce(told, List.of(1, 2), 0); // and the job goes on, in view 1
        for (String key : KEYS.keySet()) {
            assertEquals(Rounds.of(0, KILLED_AFTER + 1), change.firstRoundOf().get(key),
                    key + ": dist_async sums no round; its boundary is the round after this worker's last push");
        }
    }

    /** Records, per worker, each change with {@code rank()} and {@code numWorkers()} inside the call. */
    private List<List<Object[]>> listen() {
        List<List<Object[]>> told = new ArrayList<>();
        for (KVStore s : stores) {
            List<Object[]> mine = new CopyOnWriteArrayList<>();
            told.add(mine);
            s.onMembershipChange(c -> mine.add(new Object[] {c, s.rank(), s.numWorkers()}));
        }
        return told;
    }

    /**
     * Checks that each of {@code survivors} (first ranks, in order) was told one change, to view 1 without the
     * worker of first rank {@code lost}, with its new rank and size answered inside the call, and that they were
     * told the same {@code firstRoundOf}; returns the first survivor's change.
     */
    private MembershipChange toldOnce(List<List<Object[]>> told, List<Integer> survivors, int lost) {
        MembershipChange first = null;
        for (int i = 0; i < survivors.size(); i++) {
            int r = survivors.get(i);
            assertEquals(1, told.get(r).size(), "worker " + r + " was told " + told.get(r).size() + " changes");
            MembershipChange c = (MembershipChange) told.get(r).get(0)[0];
            assertEquals(1, c.epoch());
            assertEquals(i, c.rank(), "worker " + r + "'s rank in view 1");
            assertEquals(r, c.previousRank());
            assertEquals(2, c.numWorkers());
            assertEquals(List.of(lost), c.left().stream().map(MembershipChange.Departure::rank).toList());
            assertEquals(i, told.get(r).get(0)[1], "rank() inside the call");
            assertEquals(2, told.get(r).get(0)[2], "numWorkers() inside the call");
            assertEquals(i, stores.get(r).rank());
            if (first != null) {
                assertEquals(first.firstRoundOf(), c.firstRoundOf(), "the survivors' first rounds");
            }
            first = first == null ? c : first;
        }
        return first;
    }
}
