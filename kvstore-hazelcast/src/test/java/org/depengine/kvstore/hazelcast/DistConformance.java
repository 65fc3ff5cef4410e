package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.cluster.impl.ClusterServiceImpl;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.spi.impl.eventservice.EventService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.peer.PeerExchange;
import org.depengine.testkit.KVStoreConformance;
import org.depengine.testkit.StoreSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suites on a 3-member loopback cluster formed once per test class; every test's stores
 * use maps of their own ({@code jobId}), on the members 0..n-1. After each test: none of the test's maps is
 * left on any member, no map listener and no membership listener of a store is left registered, and no
 * data transport is open.
 */
abstract class DistConformance extends KVStoreConformance {
    private static final int MEMBERS = 3;
    private static final AtomicInteger STORES = new AtomicInteger();
    private static TestCluster cluster;
    private static List<HazelcastInstance> members;
    private static int[] membershipListenersBefore;
    private static final List<String> JOBS = new ArrayList<>();

    /** The conformance suites' own updaters (testkit's, package-private there), registered on every member. */
    private static final Map<String, String> UPDATERS = Map.of("updaterClasses",
            "org.depengine.testkit.KVStoreSuite$ScaledSum,org.depengine.testkit.KVStoreSuite$FailingUpdater");

    /** {@code dist_sync} or {@code dist_async}. */
    abstract String type();

    /** Settings every store of the class is opened with (e.g. {@code updateOn}). */
    Map<String, String> extra() {
        return Map.of();
    }

    @BeforeAll
    static void form() {
        cluster = new TestCluster(MEMBERS);
        members = cluster.startMembers(MEMBERS, UPDATERS);
        membershipListenersBefore = new int[MEMBERS];
        for (int i = 0; i < MEMBERS; i++) {
            membershipListenersBefore[i] = membershipListeners(members.get(i));
        }
    }

    @AfterAll
    static void stop() {
        if (members != null) {
            members.forEach(HazelcastInstance::shutdown);
        }
    }

    @Override
    public StoreSetup store() {
        StoreSetup s = StoreSetup.of(type(), this::open).withMaxWorkers(MEMBERS).withSplitFloats(2)
                .withEngines("pooled", "perdevice").withInvariants(DistConformance::checkNothingLeft);
        return HazelcastKVStoreProvider.DIST_ASYNC.equals(type()) ? s.withAsyncRounds() : s;
    }

    private List<KVStore> open(List<org.depengine.api.Engine> engines, Map<String, String> settings) {
        int n = engines.size();
        Map<String, String> s = new HashMap<>(extra());
        s.putAll(settings);
        String job = type() + "-" + STORES.incrementAndGet();
        synchronized (JOBS) {
            JOBS.add(job);
        }
        s.put("jobId", job);
        s.put("numWorkers", Integer.toString(n));
        s.put("updaterClasses", UPDATERS.get("updaterClasses"));
        return TestCluster.parallel(n, r -> HazelcastKVStoreProvider.open(engines.get(r), type(),
                cluster.storeSettings(r, s), members.get(r)));
    }

    /** The invariants after a test that closed every store it opened. */
    private static void checkNothingLeft() {
        List<String> jobs;
        synchronized (JOBS) {
            jobs = new ArrayList<>(JOBS);
            JOBS.clear();
        }
        for (int i = 0; i < MEMBERS; i++) {
            HazelcastInstance m = members.get(i);
            for (DistributedObject o : m.getDistributedObjects()) {
                for (String job : jobs) {
                    if (o.getName().startsWith(ClusterNode.MAP_PREFIX + job + ".") || o.getName().equals(ClusterNode.MAP_PREFIX + job)) {
                        throw new AssertionError("member " + i + " still holds " + o.getName() + " after every store of job '"
                                + job + "' closed");
                    }
                    int listeners = events(m).getRegistrations(MapService.SERVICE_NAME, o.getName()).size();
                    if (o.getName().contains(job) && listeners > 0) {
                        throw new AssertionError(listeners + " listener(s) left on " + o.getName());
                    }
                }
            }
            int now = membershipListeners(m);
            if (now != membershipListenersBefore[i]) {
                throw new AssertionError("member " + i + " has " + now + " membership listeners, " + membershipListenersBefore[i]
                        + " before the tests: a store left its listener");
            }
        }
        if (PeerExchange.open() != 0) {
            throw new AssertionError(PeerExchange.open() + " data transport(s) of closed stores are still open");
        }
    }

    private static EventService events(HazelcastInstance m) {
        return ((HazelcastInstanceProxy) m).getOriginal().node.getNodeEngine().getEventService();
    }

    private static int membershipListeners(HazelcastInstance m) {
        return events(m).getRegistrations(ClusterServiceImpl.SERVICE_NAME, ClusterServiceImpl.SERVICE_NAME).size();
    }
}
