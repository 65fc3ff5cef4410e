package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.testkit.KVStoreConformance;

/**
 * The conformance suite on a 3-member loopback cluster formed once per test class; every test's
 * stores use maps of their own ({@code jobId}), on the members 0..n-1.
 */
abstract class DistConformance extends KVStoreConformance {
    private static final int MEMBERS = 3;
    private static final AtomicInteger STORES = new AtomicInteger();
    private static TestCluster cluster;
    private static List<HazelcastInstance> members;

    /** {@code dist_sync} or {@code dist_async}. */
    abstract String type();

    /** The conformance suite's own updaters (testkit's, package-private there), registered on every member. */
    private static final Map<String, String> UPDATERS = Map.of("updaterClasses",
            "org.depengine.testkit.KVStoreConformance$ScaledSum,org.depengine.testkit.KVStoreConformance$FailingUpdater");

    static void form() {
        cluster = new TestCluster(MEMBERS);
        members = cluster.startMembers(MEMBERS, UPDATERS);
    }

    static void stop() {
        if (members != null) {
            members.forEach(HazelcastInstance::shutdown);
        }
    }

    @Override
    protected String engineName() {
        return "perdevice";
    }

    /** One CPU priority worker, so that the priority case is deterministic. */
    @Override
    protected Map<String, String> settings() {
        return Map.of("depengine.cpu.priorityWorkers", "1");
    }

    @Override
    protected int maxWorkers() {
        return MEMBERS;
    }

    /** Keys of more than 2 floats are split: 2 of the no-wait case's 3 keys. */
    @Override
    protected int splitFloats() {
        return 2;
    }

    @Override
    protected List<KVStore> openStores(List<Engine> engines, Map<String, String> settings) {
        int n = engines.size();
        Map<String, String> s = new HashMap<>(settings);
        s.put("jobId", type() + "-" + STORES.incrementAndGet());
        s.put("numWorkers", Integer.toString(n));
        s.put("updaterClasses", UPDATERS.get("updaterClasses"));
        return TestCluster.parallel(n, r -> HazelcastKVStoreProvider.open(engines.get(r), type(),
                cluster.storeSettings(r, s), members.get(r)));
    }
}
