package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.Updater;
import org.depengine.testkit.SerialTraining;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A member's loss loses nothing, killed in the middle of a round: three members, two workers (on members 0
 * and 1, through the KVStore API), split keys trained with momentum SGD and with Adam; member 2, which holds
 * no rank but part of the job's partitions (the barrier's key and the job's maps among them), is killed
 * after rank 0 has pushed round 4 and before rank 1 has. With {@code updateOn=worker} the keys live on the
 * workers, so nothing is lost and nothing needs resending; with {@code updateOn=server} each key's entry
 * and its open round's slots live on in their backups. Either way every round (the open one included)
 * gives exactly the serial model's weights on both workers, and a barrier after the loss passes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MemberLossMidRoundTest {
    private static final int MEMBERS = 3;
    private static final int WORKERS = 2;
    private static final int KEYS = 8;
    private static final int LENGTH = 10;
    private static final int ROUNDS = 6;
    @RegisterExtension
    final JobParts job = new JobParts();
    private final List<HazelcastInstance> members = job.members;
    private final List<Engine> engines = job.engines;
    private final List<KVStore> stores = job.stores;

    @ParameterizedTest(name = "updateOn={0}, {1}")
    @CsvSource({"worker, momentum", "worker, adam", "server, momentum", "server, adam"})
    void trainsAsTheSerialModelThroughAMemberKilledMidRound(String updateOn, String optimizer) throws Exception {
        TestCluster cluster = new TestCluster(MEMBERS);
        members.addAll(cluster.startMembers(MEMBERS, Map.of()));
        Map<String, String> settings = Map.of("splitFloats", "4", "updateOn", updateOn, "numWorkers",
                Integer.toString(WORKERS));
        for (int r = 0; r < WORKERS; r++) {
            engines.add(Engine.create("perdevice"));
        }
        stores.addAll(TestCluster.parallel(WORKERS, r -> HazelcastKVStoreProvider.open(engines.get(r), "dist_sync",
                cluster.storeSettings(r, settings), members.get(r))));
        Updater updater = optimizer.equals("adam") ? Updater.adam(0.01f) : Updater.sgd(0.05f, 0.9f, 0.01f, 1f);
        run(new SerialTraining(updater, lengths("k"), WORKERS, 5), updater);
    }

    private void run(SerialTraining model, Updater updater) throws Exception {
        Map<String, DeviceArray[]> arrays = new LinkedHashMap<>();
        for (KVStore s : stores) {
            s.setUpdater(updater);
        }
        for (String key : model.keys()) {
            DeviceArray[] a = new DeviceArray[WORKERS];
            for (KVStore s : stores) {
                a[s.rank()] = HostArrays.array(s.engine(), key + s.rank(), LENGTH);
                HostArrays.write(s.engine(), a[s.rank()], model.initial(key, LENGTH));
                s.init(key, a[s.rank()]);
            }
            arrays.put(key, a);
        }
        for (int round = 1; round <= ROUNDS; round++) {
            for (KVStore s : stores) {
                for (String key : model.keys()) {
                    DeviceArray a = arrays.get(key)[s.rank()];
                    HostArrays.write(s.engine(), a, model.gradient(round, s.rank(), key));
                    s.push(key, a);
                }
                if (round == 4 && s.rank() == 0) {
                    members.get(2).getLifecycleService().terminate(); // a crash, after rank 0's pushes, before rank 1's
                }
            }
            for (KVStore s : stores) {
                for (String key : model.keys()) {
                    s.pull(key, arrays.get(key)[s.rank()]);
                }
            }
            model.round(round);
            for (KVStore s : stores) {
                for (String key : model.keys()) {
                    assertArrayEquals(model.weights(key), HostArrays.read(s.engine(), arrays.get(key)[s.rank()], LENGTH),
                            key + " on rank " + s.rank() + " after round " + round);
                }
            }
        }
        List<CompletableFuture<Void>> barriers = new ArrayList<>();
        for (KVStore s : stores) {
            barriers.add(CompletableFuture.runAsync(s::barrier));
        }
        for (CompletableFuture<Void> b : barriers) {
            b.get(60, TimeUnit.SECONDS);
        }
        for (KVStore s : stores) {
            assertEquals(0, s.stats().workersLost(), "a member that held no rank is no worker lost");
        }
    }

    private static Map<String, Integer> lengths(String prefix) {
        Map<String, Integer> keys = new LinkedHashMap<>();
        for (int k = 0; k < KEYS; k++) {
            keys.put(prefix + k, LENGTH);
        }
        return keys;
    }
}
