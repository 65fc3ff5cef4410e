package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.settings.Settings;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.testkit.Eventually;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39's findings, each fixed where the value is given: every setting this module reads is declared in
 * the project's catalog and parsed by the one parser, so a bad value is an {@link IllegalArgumentException}
 * at {@code build()} (or at open, for what only the machine can tell) naming the setting; and rank 0's
 * refusal of a corrupt checkpoint reaches the other ranks at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SettingsFindingsTest {
    @Test
    void everySettingOfTheModuleIsInTheProjectsCatalog() {
        for (String name : List.of("members", "mode", "clusterName", "port", "portCount", "bind", "jobId", "joinTimeoutMs",
                "heartbeatSeconds", "partitions", "splitFloats", "backups", "updaterClasses", "updateOn", "dataPort", "elastic",
                "minWorkers", "maxWorkers", "minWorkersWaitMs", "recoveryTimeoutMs")) {
            assertTrue(Settings.declared("depengine.kvstore." + name).isPresent(), name);
        }
    }

    @Test
    void aBindThatIsNoAddressIsRefusedAtBuildNamingTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KVStoreSettings.builder().set("bind", "not an address").build());
        assertTrue(e.getMessage().contains("depengine.kvstore.bind") && e.getMessage().contains("'not an address'"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KVStoreSettings.builder().set("bind", "10.0.0.300").build());
        KVStoreSettings.builder().set("bind", "10.0.0.*").build(); // Hazelcast's patterns are taken
    }

    @Test
    void aBindThatIsNotAnAddressOfThisMachineIsRefusedAtOpenNamingTheSetting() {
        TestCluster cluster = new TestCluster(1);
        KVStoreSettings s = cluster.storeSettings(0, Map.of("numWorkers", "1", "bind", "10.213.254.254",
                "joinTimeoutMs", "5000"));
        try (Engine engine = Engine.create("perdevice")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KVStore.open(engine, "dist_sync", s).close());
            assertTrue(e.getMessage().startsWith(s.describe(HazelcastSettings.BIND) + "='10.213.254.254' is invalid"),
                    e.getMessage());
        }
    }

    @Test
    void anEmptyJobIdIsRefusedAtBuildNamingTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KVStoreSettings.builder().set("jobId", "").build());
        assertTrue(e.getMessage().contains("depengine.kvstore.jobId"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KVStoreSettings.builder().set("jobId", "   ").build());
    }

    @Test
    void otherValuesAreRefusedAtBuildAndUpdateOnWorkerAtADistAsyncOpen() {
        for (Map.Entry<String, String> bad : Map.of("port", "70000", "backups", "7", "splitFloats", "0", "mode", "server",
                "members", "localhost", "updateOn", "everywhere", "joinTimeoutMs", "soon").entrySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KVStoreSettings.builder().set(bad.getKey(), bad.getValue()).build(), bad.toString());
            assertTrue(e.getMessage().contains("depengine.kvstore." + bad.getKey()), e.getMessage());
        }
        KVStoreSettings worker = KVStoreSettings.builder().set("updateOn", "worker").build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterSettings.from(worker, true));
        assertTrue(e.getMessage().startsWith(worker.describe(HazelcastSettings.UPDATE_ON) + "='worker' does not suit a "
                + "dist_async store"), e.getMessage());
        assertEquals(HazelcastSettings.UpdateOn.WORKER, ClusterSettings.from(KVStoreSettings.defaults(), false).updateOn());
        assertEquals(HazelcastSettings.UpdateOn.SERVER, ClusterSettings.from(KVStoreSettings.defaults(), true).updateOn());
    }

    /**
     * Rank 0 reads the checkpoint a job resumes from; one it refuses (here not a checkpoint at all) used to
     * leave the other ranks waiting for the join timeout with "only ranks [1] joined". Now they fail at once
     * with rank 0's refusal, and rank 0 with the file's own error.
     */
    @Test
    void rankZerosRefusalOfACorruptCheckpointReachesTheOtherRanksAtOnce(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("job.ckpt"), "not a checkpoint");
        TestCluster cluster = new TestCluster(2);
        Map<String, String> s = Map.of("resume", bad.toString(), "joinTimeoutMs", "60000", "jobId", "refused");
        try (Engine e0 = Engine.create("perdevice"); Engine e1 = Engine.create("perdevice")) {
            long t0 = System.nanoTime();
            CompletableFuture<KVStore> one = CompletableFuture.supplyAsync(
                    () -> KVStore.open(e1, "dist_sync", cluster.storeSettings(1, s)));
            // Rank 1's member must be up before rank 0 refuses: a worker that joins the cluster only after rank
            // 0 has left cannot learn of the refusal, and waits for the join timeout (a known limit).
            Eventually.equals(1, () -> Hazelcast.getAllHazelcastInstances().stream().filter(h ->
                    cluster.clusterName.equals(h.getConfig().getClusterName()) && h.getLifecycleService().isRunning())
                    .count(), "rank 1's member started");
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                    () -> KVStore.open(e0, "dist_sync", cluster.storeSettings(0, s)).close());
            assertTrue(zero.getMessage().contains("is not a depengine kvstore checkpoint"), zero.getMessage());
            ExecutionException e = assertThrows(ExecutionException.class, () -> one.get(45, TimeUnit.SECONDS).close());
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(e.getCause() instanceof KVStoreException, e.getCause().toString());
            String m = e.getCause().getMessage();
            assertTrue(m.contains("rank 0 refused to start job 'refused'") && m.contains("not a depengine kvstore checkpoint"),
                    m);
            assertTrue(seconds < 40, "rank 1 learned of the refusal after " + seconds + " s, the join timeout is 60 s");
        }
    }
}
