package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.protocol.Sums;
import org.depengine.kvstore.hazelcast.protocol.UpdatedValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

/**
 * A worker joins a running elastic job ({@code join=true}): three workers on three embedded members push a small
 * key and a split one (its parts summed by different workers) with momentum SGD for a period, then a fourth
 * process-like worker (its own member, engine and store, no rank, no numWorkers) opens with {@code join=true}.
 * Its open returns once a view admits it; its {@code period()} is the period the admission gives it, and the
 * members' listeners are told the arrival with that period. The members finish the periods before it alone; from
 * it on, every round includes the joiner's push. The joiner's first pull is the job's value at its first period
 * (its own init's value is not the key's), and every pull of every worker equals the serial model (each round's
 * rank-order sum over the workers in it, through the updater, optimizer state included), bit for bit. Also: a
 * worker killed while the joiner is admitted, and the refusals (a full job, no job, a joiner given a rank).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ElasticJoinTest {
    private static final int WORKERS = 3;
    private static final int ROUNDS = 2;
    private static final Updater UPDATER = Updater.sgd(0.25f, 0.5f, 0f, 1f);
    private static final Map<String, Integer> KEYS = new LinkedHashMap<>(Map.of("small", 3, "split", 24));
    @RegisterExtension
    final JobParts job = new JobParts();
    private final List<HazelcastInstance> members = job.members;
    private final List<Engine> engines = job.engines;
    private final List<KVStore> stores = job.stores;

    @Test
    void aJoinerTakesTheJobsStateAndTheRoundsFromItsFirstPeriodIncludeIt() throws Exception {
        run(false);
    }

    /**
     * Rank 2's member is killed as the joiner opens: the job moves to a view without it and one with the joiner,
     * in whichever order the timing gives, and the joiner still starts from the job's state.
     */
    @Test
    void aWorkerKilledWhileAJoinerIsAdmittedLeavesTheJoinerTheJobsState() throws Exception {
        run(true);
    }

    private void run(boolean killOne) throws Exception {
        TestCluster cluster = new TestCluster(WORKERS + 1);
        Map<String, String> settings = Map.of("elastic", "true", "minWorkers", "1", "maxWorkers", "4", "splitFloats", "4",
                "numWorkers", Integer.toString(WORKERS));
        stores.addAll(ElasticJobs.open(cluster, WORKERS, Map.of(), settings, members, engines));
        List<List<MembershipChange>> told = new ArrayList<>();
        List<CompletableFuture<MembershipChange>> arrivals = new ArrayList<>();
        for (KVStore s : stores) {
            List<MembershipChange> mine = new CopyOnWriteArrayList<>();
            CompletableFuture<MembershipChange> arrival = new CompletableFuture<>();
            told.add(mine);
            arrivals.add(arrival);
            s.onMembershipChange(c -> {
                mine.add(c);
                if (!c.joined().isEmpty()) {
                    arrival.complete(c);
                }
            });
            s.setUpdater(UPDATER);
        }
        Map<String, float[]> init = new HashMap<>();
        KEYS.forEach((k, n) -> init.put(k, Pushes.small(7, 0, n)));
        Map<String, DeviceArray[]> arrays = ElasticJobs.init(KEYS, stores, engines, (key, r) -> init.get(key));
        Map<String, UpdatedValue> model = new LinkedHashMap<>();
        init.forEach((k, v) -> model.put(k, new UpdatedValue(v.clone(), new float[0], 0)));
        List<Integer> live = new ArrayList<>(List.of(0, 1, 2));
        period(0, live, arrays, model);
        barrier(live);

        // The joiner: a member of its own, and a store opened with join=true, no rank and no numWorkers.
        HazelcastInstance joinerMember = ClusterNode.start(cluster.settings(WORKERS, Map.of()));
        members.add(joinerMember);
        Engine joinerEngine = Engine.create("perdevice");
        engines.add(joinerEngine);
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        cluster.properties(WORKERS, Map.of("elastic", "true", "join", "true", "splitFloats", "4")).forEach((k, v) -> {
            if (!k.equals("rank") && !k.equals("numWorkers")) {
                b.set(k, v);
            }
        });
        CompletableFuture<KVStore> opening = TestCluster.onItsOwnThread(() ->
                HazelcastKVStoreProvider.open(joinerEngine, "dist_sync", b.build(), joinerMember));
        if (killOne) {
            members.get(2).getLifecycleService().terminate(); // a crash, while the joiner is being admitted
            live.remove(Integer.valueOf(2));
        }
        KVStore joiner = opening.get(60, TimeUnit.SECONDS);
        stores.add(joiner);
        int joinerIndex = stores.size() - 1;
        int first = joiner.period();
        assertTrue(first >= 2, "the joiner starts after the members' period 1: " + first);
        // Every survivor is told the arrival (and the loss), with the joiner's first period.
        for (int r : live) {
            MembershipChange arrival = arrivals.get(r).get(30, TimeUnit.SECONDS);
            assertEquals(first, arrival.joined().get(0).fromPeriod(), "the arrival's first period, told to rank " + r);
            assertEquals(live.size() + 1, stores.get(r).numWorkers(), "rank " + r + "'s numWorkers()");
        }
        assertEquals(live.size(), joiner.rank(), "the joiner's rank: after the members'");
        assertEquals(live.size() + 1, joiner.numWorkers());
        if (killOne) {
            assertTrue(told.get(0).stream().anyMatch(c -> c.left().size() == 1), "the loss: " + told.get(0));
        }

        // The periods before the joiner's first: the members alone.
        for (int p = 1; p < first; p++) {
            period(p, live, arrays, model);
            barrier(live);
        }
        joiner.setUpdater(UPDATER);
        Map<String, DeviceArray> mine = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> k : KEYS.entrySet()) {
            DeviceArray a = HostArrays.array(joinerEngine, k.getKey() + "-joiner", k.getValue());
            HostArrays.write(joinerEngine, a, Pushes.small(99, 99, k.getValue())); // not the key's value: the job's is
            joiner.init(k.getKey(), a);
            mine.put(k.getKey(), a);
            joiner.pull(k.getKey(), a);
            assertArrayEquals(model.get(k.getKey()).value(), HostArrays.read(joinerEngine, a, k.getValue()),
                    k.getKey() + ": the joiner's first pull, the job's value as of period " + first);
        }
        KEYS.forEach((k, n) -> {
            DeviceArray[] withJoiner = java.util.Arrays.copyOf(arrays.get(k), joinerIndex + 1);
            withJoiner[joinerIndex] = mine.get(k);
            arrays.put(k, withJoiner);
        });
        List<Integer> now = new ArrayList<>(live);
        now.add(joinerIndex);
        period(first, now, arrays, model);
        barrier(now);
        // The job's end: the live workers close (a killed rank 2 never does); the last destroys the job's maps.
        TestCluster.closeTogether(stores, now);
        assertEquals(List.of(), TestCluster.jobMaps(members.get(0)), "the job's maps after its live workers closed");
    }

    /** One period of {@link #ROUNDS} rounds: every worker of {@code ranks} pushes each key, then all pull, checked with the model. */
    private void period(int p, List<Integer> ranks, Map<String, DeviceArray[]> arrays, Map<String, UpdatedValue> model) {
        for (int round = 1; round <= ROUNDS; round++) {
            for (Map.Entry<String, Integer> k : KEYS.entrySet()) {
                List<float[]> parts = new ArrayList<>();
                for (int r : ranks) {
                    float[] g = Pushes.small(r, p * 10 + round, k.getValue());
                    parts.add(g);
                    HostArrays.write(engines.get(r), arrays.get(k.getKey())[r], g);
                    stores.get(r).push(k.getKey(), arrays.get(k.getKey())[r]);
                }
                model.get(k.getKey()).apply(UPDATER, k.getKey(), Sums.of(parts)); // rank order: the stores' order
            }
            for (Map.Entry<String, Integer> k : KEYS.entrySet()) {
                float[] got = HostArrays.pullOnEach(stores, engines, ranks, k.getKey(), arrays.get(k.getKey()),
                        k.getValue(), "in period " + p + " round " + round);
                assertArrayEquals(model.get(k.getKey()).value(), got, k.getKey() + " in period " + p + " round " + round
                        + " over workers " + ranks);
            }
        }
    }

    private void barrier(List<Integer> ranks) throws Exception {
        ElasticJobs.barrierOnEach(ranks.stream().map(stores::get).toList());
    }

    /** A joiner is refused: when the job is at maxWorkers, and when no job of its id runs. */
    @Test
    void aJoinerIsRefusedWhenTheJobIsFullOrAbsent() throws Exception {
        TestCluster cluster = new TestCluster(WORKERS + 1);
        stores.addAll(ElasticJobs.open(cluster, WORKERS, Map.of(), Map.of("elastic", "true", "numWorkers", "3"), members,
                engines));
        HazelcastInstance joinerMember = ClusterNode.start(cluster.settings(WORKERS, Map.of()));
        members.add(joinerMember);
        Engine e = Engine.create("perdevice");
        engines.add(e);
        KVStoreException full = assertThrows(KVStoreException.class, () -> HazelcastKVStoreProvider.open(e, "dist_sync",
                joinerSettings(cluster, Map.of()), joinerMember));
        assertTrue(full.getMessage().contains("maxWorkers=3") && full.getMessage().contains("is full"), full.getMessage());
        KVStoreException none = assertThrows(KVStoreException.class, () -> HazelcastKVStoreProvider.open(e, "dist_sync",
                joinerSettings(cluster, Map.of("jobId", "no-such-job")), joinerMember));
        assertTrue(none.getMessage().contains("no job 'no-such-job' runs"), none.getMessage());
        IllegalArgumentException ranked = assertThrows(IllegalArgumentException.class, () -> HazelcastKVStoreProvider.open(
                e, "dist_sync", joinerSettings(cluster, Map.of("rank", "0")), joinerMember));
        assertTrue(ranked.getMessage().contains("a joiner takes its rank from the view"), ranked.getMessage());
        // The refused joiners left nothing behind: the job still runs with its three workers.
        for (KVStore s : stores) {
            assertEquals(WORKERS, s.numWorkers());
        }
    }

    private static KVStoreSettings joinerSettings(TestCluster cluster, Map<String, String> extra) {
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        Map<String, String> p = cluster.properties(WORKERS, Map.of("elastic", "true", "join", "true", "joinTimeoutMs",
                "20000"));
        p.remove("rank");
        p.remove("numWorkers");
        p.putAll(extra);
        p.forEach(b::set);
        return b.build();
    }
}
