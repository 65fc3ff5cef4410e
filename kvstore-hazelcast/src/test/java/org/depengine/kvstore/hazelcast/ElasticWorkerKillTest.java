package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.spi.Rounds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker process of an elastic job killed mid-round ({@code destroyForcibly}, i.e. SIGKILL): three workers,
 * ranks 0 and 1 here, rank 2 a child JVM ({@link ElasticChildWorker}) killed once it has pushed round 3 and
 * before the others pull it. The survivors' pulls of round 3 and later complete, each value the sum of the
 * pushes of the members of that round's view (every store here keeps the last round's sum: no updater), with
 * the view given by the change's {@code firstRoundOf}; and the times are within bounds: the loss detected
 * (the departure's time) within 15 s of the kill, the survivors told of the new view within 5 s of that.
 * The figures are logged.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ElasticWorkerKillTest {
    private static final Logger LOG = LoggerFactory.getLogger(ElasticWorkerKillTest.class);
    private static final int KILLED_AFTER = 3;
    private static final int ROUNDS = 6;

    /** Worker {@code rank}'s push of {@code round} (every float of it): whole numbers, so every sum is exact. */
    static float push(int rank, int round) {
        return 10 * (rank + 1) + round;
    }

    @Test
    void survivorsOfAKilledWorkerProcessGoOnWithinTheBoundsAndSumTheRightPushes() throws Exception {
        TestCluster cluster = new TestCluster(3);
        Map<String, String> settings = Map.of("elastic", "true", "minWorkers", "1", "timeoutMs", "60000");
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Dhazelcast.logging.type=slf4j", "-Dorg.slf4j.simpleLogger.log.com.hazelcast=warn",
                "-Ddepengine.test.childRounds=" + KILLED_AFTER, "-cp", System.getProperty("java.class.path"),
                ElasticChildWorker.class.getName()));
        cluster.properties(2, settings).forEach((k, v) -> cmd.add(k + "=" + v));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<Engine> engines = new ArrayList<>();
        List<KVStore> stores = new ArrayList<>();
        try {
            CompletableFuture<String> pushed = TestCluster.onItsOwnThread(() -> awaitLine(child, "ROUND " + KILLED_AFTER
                    + " PUSHED"));
            engines.add(Engine.create("perdevice"));
            engines.add(Engine.create("perdevice"));
            stores.addAll(TestCluster.parallel(2, r -> KVStore.open(engines.get(r), "dist_sync",
                    cluster.storeSettings(r, settings))));
            List<CompletableFuture<Object[]>> told = new ArrayList<>();
            List<DeviceArray> w = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                CompletableFuture<Object[]> change = new CompletableFuture<>();
                told.add(change);
                stores.get(r).onMembershipChange(c -> change.complete(new Object[] {c, Instant.now()}));
                w.add(WorkerKillTest.array(engines.get(r), "w"));
                WorkerKillTest.write(engines.get(r), w.get(r), 0);
                stores.get(r).init("w", w.get(r));
            }
            float[] pulled = new float[ROUNDS + 1];
            Instant killed = null;
            for (int round = 1; round <= ROUNDS; round++) {
                for (int r = 0; r < 2; r++) {
                    WorkerKillTest.write(engines.get(r), w.get(r), push(r, round));
                    stores.get(r).push("w", w.get(r));
                }
                if (round == KILLED_AFTER) {
                    for (Engine e : engines) {
                        e.waitForAll(Duration.ofSeconds(60)); // the survivors' pushes are out too
                    }
                    pushed.get(60, TimeUnit.SECONDS);
                    killed = Instant.now();
                    child.destroyForcibly();
                    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
                }
                for (int r = 0; r < 2; r++) {
                    stores.get(r).pull("w", w.get(r));
                    float got = ChildWorker.read(engines.get(r), w.get(r))[0];
                    if (r == 1) {
                        assertEquals(pulled[round], got, "the survivors' copies differ after round " + round);
                    }
                    pulled[round] = got;
                }
            }
            MembershipChange c = (MembershipChange) told.get(0).get(30, TimeUnit.SECONDS)[0];
            Instant toldAt = (Instant) told.get(0).get()[1];
            assertEquals(1, c.epoch());
            assertEquals(2, c.numWorkers());
            assertEquals(1, c.left().size());
            assertEquals(2, c.left().get(0).rank());
            assertEquals(c.firstRoundOf(), ((MembershipChange) told.get(1).get(30, TimeUnit.SECONDS)[0]).firstRoundOf());
            long first = Rounds.index(c.firstRoundOf().get("w"));
            assertTrue(first == KILLED_AFTER || first == KILLED_AFTER + 1, "first round of the new view: " + first);
            for (int round = 1; round <= ROUNDS; round++) {
                float model = push(0, round) + push(1, round) + (round < first ? push(2, round) : 0);
                assertEquals(model, pulled[round], "round " + round + " (the new view's first round " + first + ")");
            }
            double detection = Duration.between(killed, c.left().get(0).detectedAt()).toMillis() / 1000.0;
            double recovery = Duration.between(c.left().get(0).detectedAt(), toldAt).toMillis() / 1000.0;
            LOG.info("a killed worker process: detected {} s after the kill ({}), the survivors told of view 1 {} s "
                    + "after that", detection, c.left().get(0).why(), recovery);
            assertTrue(detection < 15, "detection took " + detection + " s");
            assertTrue(recovery < 5, "recovery took " + recovery + " s");
        } finally {
            child.destroyForcibly();
            stores.forEach(KVStore::close);
            engines.forEach(Engine::close);
        }
    }

    private static String awaitLine(Process child, String line) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            StringBuilder seen = new StringBuilder();
            for (String l; (l = r.readLine()) != null; ) {
                seen.append(l).append('\n');
                if (l.equals(line)) {
                    return seen.toString();
                }
            }
            throw new IllegalStateException("the child worker ended before '" + line + "':\n" + seen);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
