package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.EngineException;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker process killed mid-epoch ({@code destroyForcibly}, i.e. SIGKILL): the other worker's pending
 * pull fails within seconds, naming the lost rank, the key and the round; before that, the engine's
 * diagnostics show the pull waiting on that key and round. Never a silent hang.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class WorkerKillTest {
    static DeviceArray array(Engine engine, String name) {
        return new DeviceArray(Devices.device(Context.cpu()).allocate(4 * 4), engine.newVariable(name));
    }

    static void write(Engine engine, DeviceArray a, float v) {
        ChildWorker.push(engine, a, v);
    }

    @Test
    void aKilledWorkerFailsTheOthersPendingPullNamingItsRankTheKeyAndTheRound() throws Exception {
        TestCluster cluster = new TestCluster(2);
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Dhazelcast.logging.type=slf4j", "-Dorg.slf4j.simpleLogger.log.com.hazelcast=warn",
                "-cp", System.getProperty("java.class.path"), ChildWorker.class.getName()));
        cluster.properties(1, Map.of("timeoutMs", "60000")).forEach((k, v) -> cmd.add(k + "=" + v));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<String> roundOneDone = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                StringBuilder seen = new StringBuilder();
                for (String line; (line = r.readLine()) != null; ) {
                    seen.append(line).append('\n');
                    if (line.equals("ROUND 1 DONE")) {
                        return seen.toString();
                    }
                }
                throw new IllegalStateException("the child worker ended before round 1:\n" + seen);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // A 60 s timeout: the failure below must come from the lost member, not from a timeout.
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = KVStore.open(engine, "dist_sync", cluster.storeSettings(0, Map.of("timeoutMs", "60000")))) {
            DeviceArray w = array(engine, "w");
            write(engine, w, 1);
            kv.init("fc1.w", w);
            kv.push("fc1.w", w);
            kv.pull("fc1.w", w);
            engine.waitForVar(w.var(), Duration.ofSeconds(60));
            roundOneDone.get(60, TimeUnit.SECONDS);

            kv.push("fc1.w", w); // round 2: rank 1 will never push it
            DeviceArray out = array(engine, "out");
            kv.pull("fc1.w", out);
            EngineDiagnostics d = engine.diagnostics();
            assertTrue(d.ops().stream().anyMatch(op -> op.name().equals("kvstore pull fc1.w")), d.report());

            long t0 = System.nanoTime();
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out.var(), Duration.ofSeconds(30)));
            double seconds = (System.nanoTime() - t0) / 1e9;
            KVStoreException kvError = cause(e, KVStoreException.class);
            String m = kvError.getMessage();
            assertEquals("fc1.w", kvError.key(), m);
            assertEquals(0, kvError.rank(), m);
            // Whichever sees it first: the membership (its member left the cluster) or, updateOn=worker, its data
            // connection closing without a goodbye.
            assertTrue(m.contains("worker rank 1") && (m.contains("left the cluster") || m.contains("left the job"))
                    && m.contains("round 2"), m);
            assertTrue(seconds < 20, "the loss took " + seconds + " s to surface: " + m);
        } finally {
            child.destroyForcibly();
        }
    }

    private static <T extends Throwable> T cause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + t, t);
    }
}
