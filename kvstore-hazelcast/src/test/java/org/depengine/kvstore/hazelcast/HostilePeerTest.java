package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.Updater;

import org.depengine.kvstore.hazelcast.hz.RefusedUpdaters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Deliver 7 of issue 26, bad input and hostile peers: an updater class the user did not register is
 * refused at the worker and at the key's owner; a worker with another cluster name is refused at open.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostilePeerTest {
    private static final String SETTING = "depengine.kvstore.updaterClasses";

    /** A user's updater: {@code stored = -merged}. */
    static final class Negate implements Updater {
        private static final long serialVersionUID = 1L;

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            for (int i = 0; i < stored.limit(); i++) {
                stored.put(i, -merged.get(i));
            }
        }
    }

    @Test
    void anUnregisteredUpdaterIsRefusedAtTheWorkerAndAtTheKeysOwner() {
        TestCluster cluster = new TestCluster(2);
        List<HazelcastInstance> members = cluster.startMembers(2, Map.of());
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = HazelcastKVStoreProvider.open(engine, "dist_sync", oneWorker(cluster, Map.of()), members.get(0))) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> kv.setUpdater(new Negate()));
            assertNamesClassAndSetting(refused.getMessage());
            kv.setUpdater(Updater.sgd(0.5f)); // the built-ins need no registration
        } finally {
            members.forEach(HazelcastInstance::shutdown);
        }
        // updateOn=worker: the updater runs on the worker that set it and never travels, so no class is refused
        List<HazelcastInstance> again = cluster.startMembers(1, Map.of());
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = HazelcastKVStoreProvider.open(engine, "dist_sync",
                     oneWorker(cluster, Map.of("updateOn", "worker")), again.get(0))) {
            kv.setUpdater(new Negate());
        } finally {
            again.forEach(HazelcastInstance::shutdown);
        }
        // a worker that registered the class while the owner did not: the owner refuses, the push fails
        List<HazelcastInstance> owners = cluster.startMembers(2, Map.of());
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8)); // where slf4j-simple, this module's test binding, logs
        try {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> pushNegatedToTheOtherMember(cluster, owners, Map.of()));
            assertTrue(e.getCause() instanceof KVStoreException, e.toString());
            assertTrue(e.getCause().getMessage().contains("refused"), e.getCause().getMessage());
            assertNamesClassAndSetting(e.getCause().getMessage());
        } finally {
            System.setErr(err);
            owners.forEach(HazelcastInstance::shutdown);
        }
        // and the owner says so in its own log, once
        List<String> ownerSays = log.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("WARN " + RefusedUpdaters.class.getName())).toList();
        assertEquals(1, ownerSays.size(), log.toString(StandardCharsets.UTF_8));
        assertTrue(ownerSays.get(0).contains("this member refused"), ownerSays.get(0));
        assertNamesClassAndSetting(ownerSays.get(0));
    }

    @Test
    void aRegisteredUpdaterIsShippedToTheKeysOwnerAndApplied() {
        TestCluster cluster = new TestCluster(2);
        Map<String, String> registered = Map.of("updaterClasses", Negate.class.getName());
        List<HazelcastInstance> members = cluster.startMembers(2, registered);
        try {
            try (Engine engine = Engine.create("perdevice");
                 KVStore kv = HazelcastKVStoreProvider.open(engine, "dist_sync", oneWorker(cluster, registered),
                         members.get(1))) {
                kv.setUpdater(new Negate()); // accepted: registered
            }
            assertArrayEquals(new float[] {-3, -4}, pushNegatedToTheOtherMember(cluster, members, registered));
        } finally {
            members.forEach(HazelcastInstance::shutdown);
        }
    }

    @Test
    void aWorkerWithAnotherClusterNameIsRefusedAtOpenNamingItsClusterAndMembers() {
        TestCluster cluster = new TestCluster(2);
        List<HazelcastInstance> members = cluster.startMembers(1, Map.of());
        String other = "another-cluster-" + UUID.randomUUID();
        KVStoreSettings wrong = cluster.storeSettings(1, Map.of("clusterName", other, "joinTimeoutMs", "3000",
                "jobId", "wrong-name"));
        try (Engine engine = Engine.create("perdevice")) {
            KVStoreException e = assertThrows(KVStoreException.class, () -> KVStore.open(engine, "dist_sync", wrong));
            String m = e.getMessage();
            assertTrue(m.contains("'" + other + "'") && m.contains("127.0.0.1:" + cluster.ports.get(0))
                    && m.contains("depengine.kvstore.clusterName"), m);
            KVStoreSettings client = wrong.toBuilder().set("mode", "client")
                    .set("members", "127.0.0.1:" + cluster.ports.get(0)).build();
            KVStoreException c = assertThrows(KVStoreException.class, () -> KVStore.open(engine, "dist_sync", client));
            assertTrue(c.getMessage().contains("'" + other + "'") && c.getMessage().contains("127.0.0.1:"
                    + cluster.ports.get(0)) && c.getMessage().contains("depengine.kvstore.clusterName"), c.getMessage());
        } finally {
            members.forEach(HazelcastInstance::shutdown);
        }
    }

    private static void assertNamesClassAndSetting(String message) {
        assertTrue(message.contains(Negate.class.getName()) && message.contains(SETTING), message);
    }

    private static Map<String, String> oneWorkerExtras(Map<String, String> extra) {
        Map<String, String> p = new java.util.HashMap<>(extra);
        p.put("numWorkers", "1");
        p.put("rank", "0");
        p.put("jobId", "job-" + UUID.randomUUID());
        p.putIfAbsent("updateOn", "server"); // where updaters travel to the keys' owners
        return p;
    }

    private static KVStoreSettings oneWorker(TestCluster cluster, Map<String, String> extra) {
        return cluster.storeSettings(0, oneWorkerExtras(extra));
    }

    /**
     * Through a one-worker table on member 0: inits a key that member 1 owns (so the push's updater is
     * shipped to it) to {1, 2}, pushes {3, 4} with {@link Negate} and pulls the result.
     */
    private static float[] pushNegatedToTheOtherMember(TestCluster cluster, List<HazelcastInstance> members,
                                                       Map<String, String> extra) {
        try (Table t = new Table(members.get(0), cluster.settings(0, oneWorkerExtras(extra)), 0, 1, false)) {
            String key = keyOwnedBy(members.get(0), members.get(1));
            t.init(key, new float[] {1, 2}).join();
            t.push(key, 1, new float[] {3, 4}, new Negate()).join();
            return t.pull(key, 1).join();
        }
    }

    /** A key (kept whole, so its map key is its name) whose partition {@code owner} owns. */
    private static String keyOwnedBy(HazelcastInstance any, HazelcastInstance owner) {
        for (int i = 0; ; i++) {
            String key = "w" + i;
            if (any.getPartitionService().getPartition(key).getOwner().getUuid()
                    .equals(owner.getCluster().getLocalMember().getUuid())) {
                return key;
            }
        }
    }
}
