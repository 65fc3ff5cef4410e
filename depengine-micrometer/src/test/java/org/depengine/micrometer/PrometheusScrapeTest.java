package org.depengine.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus registry scraping {@link EngineMeters}' meters in its text format after a known workload:
 * the names a Prometheus user queries (Micrometer's executor names with their units and suffixes) and
 * their values.
 */
class PrometheusScrapeTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)$");

    /** The scrape's samples, by name and labels as written (e.g. {@code executor_seconds_count{engine="naive",...}}). */
    static Map<String, Double> samples(String text) {
        Map<String, Double> out = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                out.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return out;
    }

    static double value(Map<String, Double> samples, String key, String scrape) {
        Double v = samples.get(key);
        if (v == null) {
            throw new AssertionError("no sample " + key + " in the scrape:\n" + scrape);
        }
        return v;
    }

    @Test
    void theScrapeHasTheExecutorAndOpMetersWithTheirValues() {
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Engine e = EngineMetersTest.engine("pooled", 1); EngineMeters meters = new EngineMeters(e)) {
            meters.bindTo(r);
            Workload.run(e);
            assertThrows(EngineException.class, () -> e.waitForAll(EngineMetersTest.BOUND));
            String group = "depengine-pooled-worker";
            String labels = "{engine=\"pooled\",name=\"" + group + "\"}";
            EngineMetersTest.eventually(Workload.PUSHED,
                    () -> samples(r.scrape()).getOrDefault("executor_completed_tasks_total" + labels, -1.0), "scraped completed");
            String scrape = r.scrape();
            Map<String, Double> s = samples(scrape);
            assertEquals(Workload.PUSHED, value(s, "depengine_ops_pushed_total{engine=\"pooled\"}", scrape));
            assertEquals(Workload.FAILED, value(s, "depengine_ops_failed_total{engine=\"pooled\"}", scrape));
            assertEquals(Workload.SKIPPED, value(s, "depengine_ops_skipped_total{engine=\"pooled\"}", scrape));
            assertEquals(Workload.REPLAYED, value(s, "depengine_ops_replayed_total{engine=\"pooled\"}", scrape));
            assertEquals(0, value(s, "depengine_ops_pending{engine=\"pooled\"}", scrape));
            assertEquals(0, value(s, "depengine_waiters_threads{engine=\"pooled\"}", scrape));
            assertEquals(2, value(s, "executor_pool_size_threads" + labels, scrape));
            assertEquals(0, value(s, "executor_queued_tasks" + labels, scrape));
            assertEquals(0, value(s, "executor_active_threads" + labels, scrape));
            assertEquals(Workload.PUSHED, value(s, "executor_seconds_count" + labels, scrape));
            assertTrue(value(s, "executor_seconds_sum" + labels, scrape) > 0, scrape);
            assertTrue(value(s, "executor_idle_seconds_count" + labels, scrape) > 0, scrape);
            assertTrue(value(s, "executor_idle_seconds_sum" + labels, scrape) >= 0, scrape);
            // the copy group, idle: its meters are there with zeros
            assertEquals(0, value(s, "executor_completed_tasks_total{engine=\"pooled\",name=\"depengine-pooled-copy\"}", scrape));
            assertTrue(scrape.contains("# TYPE executor_seconds summary"), scrape);
            assertTrue(scrape.contains("# TYPE depengine_ops_pushed_total counter"), scrape);
        }
    }
}
