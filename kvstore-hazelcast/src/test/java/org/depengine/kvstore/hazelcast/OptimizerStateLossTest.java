package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.Updater;

import org.depengine.testkit.SerialTraining;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Optimizer state lives in the key's entry with its value, so it survives a member's loss with the
 * value's backup: three members, two workers (on members 0 and 1), split keys trained with momentum
 * SGD and with Adam; member 2, which owns some of the chunks and holds no rank, crashes after round 3,
 * and rounds 4 to 6 still give exactly the serial model's values.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OptimizerStateLossTest {
    private static final int MEMBERS = 3;
    private static final int WORKERS = 2;
    private static final int KEYS = 12;
    private static final int LENGTH = 10;
    private static final Map<String, String> SPLIT = Map.of("splitFloats", "4"); // 3 chunks a key
    private final TestCluster cluster = new TestCluster(MEMBERS);
    private final List<HazelcastInstance> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.forEach(HazelcastInstance::shutdown);
    }

    @Test
    void momentumAndAdamContinueAsTheSerialModelAfterAMemberCrashes() throws Exception {
        members.addAll(cluster.startMembers(MEMBERS, SPLIT));
        List<Table> t = TestCluster.parallel(WORKERS,
                r -> new Table(members.get(r), cluster.settings(r, SPLIT), r, WORKERS, false));
        Updater momentum = Updater.sgd(0.05f, 0.9f, 0.01f, 1f);
        Updater adam = Updater.adam(0.01f);
        SerialTraining m = new SerialTraining(momentum, lengths("m"), WORKERS, 5);
        SerialTraining a = new SerialTraining(adam, lengths("a"), WORKERS, 6);
        int ownedByTheVictim = 0;
        for (SerialTraining model : List.of(m, a)) {
            for (String key : model.keys()) {
                for (Table x : t) {
                    x.init(key, model.initial(key, LENGTH)).join();
                }
                for (int c = 0; c < 3; c++) {
                    if (members.get(2).getPartitionService().getPartition(key + "#" + c).getOwner().localMember()) {
                        ownedByTheVictim++;
                    }
                }
            }
        }
        assertTrue(ownedByTheVictim > 0, "member 2 must own some chunks for the test to mean anything");

        for (int round = 1; round <= 6; round++) {
            if (round == 4) {
                members.get(2).getLifecycleService().terminate(); // a crash: its chunks live on in their backups
            }
            List<CompletableFuture<Void>> pushes = new ArrayList<>();
            for (Table x : t) {
                for (String key : m.keys()) {
                    pushes.add(x.push(key, round, m.gradient(round, x.rank(), key), momentum));
                }
                for (String key : a.keys()) {
                    pushes.add(x.push(key, round, a.gradient(round, x.rank(), key), adam));
                }
            }
            CompletableFuture.allOf(pushes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            m.round(round);
            a.round(round);
            for (SerialTraining model : List.of(m, a)) {
                for (String key : model.keys()) {
                    for (Table x : t) {
                        assertArrayEquals(model.weights(key), x.pull(key, round).get(30, TimeUnit.SECONDS),
                                key + " on rank " + x.rank() + " after round " + round);
                    }
                }
            }
        }
        t.forEach(Table::close);
    }

    private static Map<String, Integer> lengths(String prefix) {
        Map<String, Integer> keys = new LinkedHashMap<>();
        for (int k = 0; k < KEYS; k++) {
            keys.put(prefix + k, LENGTH);
        }
        return keys;
    }
}
