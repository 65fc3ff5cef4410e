package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.protocol.UpdatedValue;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Checkpoints across a membership change (issue 40, design section 11): three elastic workers
 * ({@code dist_sync}, {@code updateOn=worker}) train a small key and a split one with a stateful updater
 * (momentum SGD, or Adam), end period 0 with a barrier, train on, and lose a worker (its member terminated)
 * after its push of a round; the two survivors train a few more rounds in the new view, then
 * {@code ElasticJobs.barrierOnEach(); if (rank() == 0) checkpoint(file); ElasticJobs.barrierOnEach();} — the view's rank 0 writes it (when rank 0
 * itself was lost, the survivor that was rank 1), the view's rank 1 is refused. The file holds the serial
 * model's value, optimizer state and update count of every key (the model of the elastic rule: rounds before
 * each key's {@code firstRoundOf} summed over the three workers, later ones over the survivors) and the
 * period. Then fresh jobs resume from it with 2 workers (not elastic, and elastic) and with 3: each starts in
 * the checkpoint's period, its pulls right after the inits give the checkpoint's values, and every pull of the
 * rounds after equals the serial model continued from the checkpoint's state with the resumed job's workers,
 * bit for bit on every worker; a barrier then ends the next period. Pushes are fixed by (the worker's rank in
 * the first view, the round, the key), so the model needs nothing from the run but {@code firstRoundOf}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ElasticCheckpointTest {
    private static final int WORKERS = 3;
    /** Rounds of the first job, a barrier after {@link #PERIOD_0_ROUNDS}, the loss after {@link #KILLED_AFTER}. */
    private static final int ROUNDS = 7;
    private static final int PERIOD_0_ROUNDS = 2;
    private static final int KILLED_AFTER = 4;
    private static final int RESUMED_ROUNDS = 3;
    private static final Map<String, Integer> KEYS = new LinkedHashMap<>(Map.of("small", 3, "split", 24));
    private static final Map<String, String> ELASTIC = Map.of("elastic", "true", "minWorkers", "1", "backups", "2");

    @TempDir
    Path dir;
    @RegisterExtension
    final JobParts parts = new JobParts();
    private final List<HazelcastInstance> members = parts.members;
    private final List<Engine> engines = parts.engines;
    private final List<KVStore> stores = parts.stores;

    @ParameterizedTest(name = "rank {0} killed, {1}")
    @CsvSource({"2, momentum", "0, adam"})
    void aCheckpointAfterALossResumesWithTwoAndThreeWorkersAsTheSerialModel(int killed, String optimizer)
            throws Exception {
        Updater updater = optimizer.equals("adam") ? Updater.adam(0.01f) : Updater.sgd(0.05f, 0.9f, 0.01f, 1f);
        List<Integer> survivors = new ArrayList<>(List.of(0, 1, 2));
        survivors.remove(Integer.valueOf(killed)); // first ranks, in the new view's rank order

        // The first job: three elastic workers, one lost after round KILLED_AFTER.
        Map<String, String> settings = new HashMap<>(ELASTIC);
        settings.put("splitFloats", "4");
        stores.addAll(ElasticJobs.open(new TestCluster(WORKERS), WORKERS, Map.of(), settings, members, engines));
        List<List<MembershipChange>> told = new ArrayList<>();
        for (KVStore s : stores) {
            List<MembershipChange> mine = new CopyOnWriteArrayList<>();
            told.add(mine);
            s.onMembershipChange(mine::add);
            s.setUpdater(updater);
        }
        Map<String, DeviceArray[]> arrays = ElasticJobs.init(KEYS, stores, engines, (key, r) -> Pushes.initial(key, KEYS.get(key)));
        List<Map<String, float[]>> pulled = new ArrayList<>(); // [round - 1] -> key -> the survivors' value
        List<Integer> live = List.of(0, 1, 2);
        for (int round = 1; round <= ROUNDS; round++) {
            if (round == PERIOD_0_ROUNDS + 1) {
                ElasticJobs.barrierOnEach(live.stream().map(stores::get).toList());
            }
            for (int r : live) {
                for (String key : KEYS.keySet()) {
                    HostArrays.write(engines.get(r), arrays.get(key)[r], Pushes.gradient(r, round, key, KEYS.get(key)));
                    stores.get(r).push(key, arrays.get(key)[r]);
                }
            }
            if (round == KILLED_AFTER) {
                engines.get(killed).waitForAll(Duration.ofSeconds(30)); // its pushes are out
                members.get(killed).getLifecycleService().terminate(); // a crash
                live = survivors;
            }
            Map<String, float[]> values = new LinkedHashMap<>();
            for (String key : KEYS.keySet()) {
                values.put(key, HostArrays.pullOnEach(stores, engines, live, key, arrays.get(key), KEYS.get(key),
                        "after round " + round));
            }
            pulled.add(values);
        }
        for (int i = 0; i < survivors.size(); i++) {
            int r = survivors.get(i);
            assertEquals(1, told.get(r).size(), "first rank " + r + " was told " + told.get(r).size() + " changes");
            MembershipChange c = told.get(r).get(0);
            assertEquals(i, c.rank(), "first rank " + r + "'s rank in view 1");
            assertEquals(r, c.previousRank());
            assertEquals(2, c.numWorkers());
            assertEquals(List.of(killed), c.left().stream().map(MembershipChange.Departure::rank).toList());
            assertEquals(i, stores.get(r).rank());
            assertEquals(2, stores.get(r).numWorkers());
            assertEquals(told.get(survivors.get(0)).get(0).firstRoundOf(), c.firstRoundOf(), "the survivors' agreed rounds");
        }
        Map<String, Long> firstRoundOf = told.get(survivors.get(0)).get(0).firstRoundOf();

        // The serial model of the elastic rule, checked against every pull of the first job.
        Map<String, UpdatedValue> model = new LinkedHashMap<>();
        for (String key : KEYS.keySet()) {
            long first = firstRoundOf.get(key);
            assertTrue(first == round(KILLED_AFTER) || first == round(KILLED_AFTER + 1),
                    key + "'s first round of the new view: " + Rounds.text(first));
            UpdatedValue m = new UpdatedValue(Pushes.initial(key, KEYS.get(key)), new float[0], 0);
            for (int round = 1; round <= ROUNDS; round++) {
                m.apply(updater, key, Pushes.gradientSum(round(round) < first ? List.of(0, 1, 2) : survivors, round, key,
                        KEYS.get(key)));
                assertArrayEquals(m.value(), pulled.get(round - 1).get(key), key + " after round " + round
                        + " (first round of the new view " + Rounds.text(first) + ")");
            }
            model.put(key, m);
        }

        // The checkpoint, by the view's rank 0, between two barriers.
        KVStore rank0 = stores.get(survivors.get(0));
        KVStore rank1 = stores.get(survivors.get(1));
        ElasticJobs.barrierOnEach(List.of(rank0, rank1));
        int period = rank0.period();
        assertEquals(2, period, "two barriers before the checkpoint");
        assertEquals(period, rank1.period());
        Path file = dir.resolve("elastic.ckpt");
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> rank1.checkpoint(file));
        assertTrue(refused.getMessage().contains("on rank 1"), refused.getMessage());
        assertFalse(Files.exists(file), "the view's rank 1 wrote nothing");
        rank0.checkpoint(file);
        ElasticJobs.barrierOnEach(List.of(rank0, rank1));
        parts.close();

        Checkpoint written = Checkpoint.read(file);
        assertEquals(period, written.period(), "the checkpoint's period");
        assertEquals(KEYS.keySet(), written.entries().keySet());
        for (String key : KEYS.keySet()) {
            Checkpoint.Entry e = written.entries().get(key);
            assertArrayEquals(model.get(key).value(), e.value(), "checkpointed value of " + key);
            assertArrayEquals(model.get(key).state(), e.state(), "checkpointed optimizer state of " + key);
            assertEquals(ROUNDS, e.steps(), "updates of " + key);
        }

        // Resumed with another number of workers, and with as many as before the loss.
        resume(file, period, 2, false, updater, model);
        resume(file, period, 2, true, updater, model);
        resume(file, period, 3, false, updater, model);
    }

    /**
     * A fresh job of {@code n} workers resumed from {@code file} trains {@link #RESUMED_ROUNDS} rounds; every
     * worker's pull of every round equals the model continued from {@code checkpointed} with {@code n} workers.
     */
    private void resume(Path file, int period, int n, boolean elastic, Updater updater,
            Map<String, UpdatedValue> checkpointed) throws Exception {
        String job = n + " workers" + (elastic ? ", elastic" : "");
        Map<String, String> settings = new HashMap<>(elastic ? ELASTIC : Map.of());
        settings.put("splitFloats", "4");
        settings.put("resume", file.toString());
        stores.addAll(ElasticJobs.open(new TestCluster(n), n, Map.of(), settings, members, engines));
        for (int r = 0; r < n; r++) {
            assertEquals(period, stores.get(r).period(), job + ": rank " + r + " starts in the checkpoint's period");
            assertEquals(r, stores.get(r).rank());
            assertEquals(n, stores.get(r).numWorkers());
            stores.get(r).setUpdater(updater);
        }
        Map<String, DeviceArray[]> arrays = ElasticJobs.init(KEYS, stores, engines, (key, r) -> {
            float[] ignored = new float[KEYS.get(key)];
            Arrays.fill(ignored, 100 + r); // a resumed init takes the checkpoint's value instead
            return ignored;
        });
        Map<String, UpdatedValue> model = new LinkedHashMap<>();
        checkpointed.forEach((key, m) -> model.put(key, m.copy()));
        List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            ranks.add(r);
        }
        for (int round = 0; round <= RESUMED_ROUNDS; round++) {
            for (String key : KEYS.keySet()) {
                if (round > 0) {
                    int global = ROUNDS + round; // fresh pushes: the rounds after the checkpoint's
                    for (int r = 0; r < n; r++) {
                        HostArrays.write(engines.get(r), arrays.get(key)[r], Pushes.gradient(r, global, key, KEYS.get(key)));
                        stores.get(r).push(key, arrays.get(key)[r]);
                    }
                    model.get(key).apply(updater, key, Pushes.gradientSum(ranks, global, key, KEYS.get(key)));
                }
                for (int r = 0; r < n; r++) {
                    stores.get(r).pull(key, arrays.get(key)[r]);
                    assertArrayEquals(model.get(key).value(), HostArrays.read(engines.get(r), arrays.get(key)[r],
                            KEYS.get(key)), job + ": " + key + " on rank " + r + " after resumed round " + round);
                }
            }
        }
        ElasticJobs.barrierOnEach(stores);
        for (int r = 0; r < n; r++) {
            assertEquals(period + 1, stores.get(r).period(), job + ": rank " + r + "'s period after a barrier");
            assertEquals(0, stores.get(r).stats().workersLost(), job);
        }
        parts.close();
    }

    /** The first job's round {@code round} (from 1) as a {@link Rounds} long: a barrier after round 2. */
    private static long round(int round) {
        return round <= PERIOD_0_ROUNDS ? Rounds.of(0, round) : Rounds.of(1, round - PERIOD_0_ROUNDS);
    }
}
