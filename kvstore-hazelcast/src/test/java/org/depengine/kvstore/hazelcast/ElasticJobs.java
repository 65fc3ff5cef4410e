package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;

/** The elastic store tests' jobs: members, engines and stores in this JVM, and their keys' inits. */
final class ElasticJobs {
    private ElasticJobs() {
    }

    /**
     * Starts {@code workers} members of {@code cluster} (with {@code memberSettings}) and opens a {@code dist_sync}
     * store with {@code settings} on each, an engine each; adds them to the caller's lists (its {@code @AfterEach}
     * closes them) and returns the stores, by rank.
     */
    static List<KVStore> open(TestCluster cluster, int workers, Map<String, String> memberSettings,
                              Map<String, String> settings, List<HazelcastInstance> members, List<Engine> engines) {
        return open("dist_sync", cluster, workers, memberSettings, settings, members, engines);
    }

    /** As {@link #open(TestCluster, int, Map, Map, List, List)}, stores of {@code type} ({@code dist_sync}, {@code dist_async}). */
    static List<KVStore> open(String type, TestCluster cluster, int workers, Map<String, String> memberSettings,
                              Map<String, String> settings, List<HazelcastInstance> members, List<Engine> engines) {
        members.addAll(cluster.startMembers(workers, memberSettings));
        for (int r = 0; r < workers; r++) {
            engines.add(Engine.create("perdevice"));
        }
        return TestCluster.parallel(workers, r -> HazelcastKVStoreProvider.open(engines.get(r), type,
                cluster.storeSettings(r, settings), members.get(r)));
    }

    /**
     * Inits each of {@code keys} (name → length) on every store with {@code values.apply(key, rank)}; returns each
     * key's arrays, by rank.
     */
    static Map<String, DeviceArray[]> init(Map<String, Integer> keys, List<KVStore> stores, List<Engine> engines,
                                           BiFunction<String, Integer, float[]> values) {
        Map<String, DeviceArray[]> arrays = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> k : keys.entrySet()) {
            DeviceArray[] a = new DeviceArray[stores.size()];
            for (int r = 0; r < stores.size(); r++) {
                a[r] = HostArrays.array(engines.get(r), k.getKey() + r, k.getValue());
                HostArrays.write(engines.get(r), a[r], values.apply(k.getKey(), r));
                stores.get(r).init(k.getKey(), a[r]);
            }
            arrays.put(k.getKey(), a);
        }
        return arrays;
    }

    /** {@code barrier()} on every store of {@code workers} at once, each on a thread of its own (each waits for the others). */
    static void barrierOnEach(List<KVStore> workers) throws Exception {
        List<java.util.concurrent.CompletableFuture<Void>> barriers = new java.util.ArrayList<>();
        for (KVStore s : workers) {
            barriers.add(TestCluster.onItsOwnThread(s::barrier));
        }
        for (java.util.concurrent.CompletableFuture<Void> b : barriers) {
            b.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
