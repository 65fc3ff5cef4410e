package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.junit.jupiter.api.Test;

/**
 * {@code MultiDeviceTraining --metrics-port}'s server, in-process: it listens on the loopback address only,
 * and a GET of {@code /metrics} returns the Prometheus text with the engine's executor meters.
 */
class TrainingMetricsTest {
    @Test
    void theMetersAreServedOnLoopbackInPrometheusTextFormat() throws Exception {
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = KVStore.open(engine, "local");
             TrainingMetrics meters = new TrainingMetrics(engine, kv, 0)) {
            for (int i = 0; i < 10; i++) {
                engine.op("work").writes(engine.newVariable()).run(ctx -> { });
            }
            engine.waitForAll(Duration.ofSeconds(60));
            URI url = URI.create(meters.url());
            assertEquals(InetAddress.getLoopbackAddress().getHostAddress(), url.getHost(), "bound to loopback only");
            HttpURLConnection c = (HttpURLConnection) url.toURL().openConnection();
            String body;
            try (InputStream in = c.getInputStream()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
            assertEquals(200, c.getResponseCode());
            assertTrue(c.getContentType().startsWith("text/plain"), c.getContentType());
            assertTrue(body.contains("depengine_ops_pushed_total{engine=\"perdevice\"} 10.0"), body);
            assertTrue(body.contains("executor_completed_tasks_total{engine=\"perdevice\",name=\"depengine-perdevice-cpu0-worker\"}"),
                    body);
            assertTrue(meters.summary().contains("ops: pushed 10, failed 0"), meters.summary());
        }
    }

    @Test
    void withoutAPortNothingIsServed() throws Exception {
        try (Engine engine = Engine.create("naive");
             KVStore kv = KVStore.open(engine, "local");
             TrainingMetrics meters = new TrainingMetrics(engine, kv, null)) {
            assertNull(meters.url());
            assertTrue(meters.summary().contains("depengine-naive-callers"), meters.summary());
        }
    }
}
