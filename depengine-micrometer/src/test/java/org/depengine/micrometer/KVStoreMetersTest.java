package org.depengine.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.spi.EngineConfig;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreStats;
import org.junit.jupiter.api.Test;

/**
 * {@link KVStoreMeters} against the {@link KVStoreStats} contract: each statistic reaches its meter, read
 * live at each scrape, in a {@link SimpleMeterRegistry} and in the Prometheus registry's text format; and
 * a real {@code local} store's counts after a round. (The distributed stores' own statistics are tested
 * with those stores, in KVStoreConformance.)
 */
class KVStoreMetersTest {
    /** Statistics whose values a test sets; {@code base} + a per-statistic offset, so that no two are equal. */
    static final class Stats implements KVStoreStats {
        final AtomicLong base = new AtomicLong(100);

        @Override public long pushes() { return base.get() + 1; }
        @Override public long pulls() { return base.get() + 2; }
        @Override public long failedOps() { return base.get() + 3; }
        @Override public long roundsCompleted() { return base.get() + 4; }
        @Override public long bytesSent() { return base.get() + 5; }
        @Override public long bytesReceived() { return base.get() + 6; }
        @Override public long roundLatencyCount() { return base.get() + 7; }
        @Override public long roundLatencyNanos() { return (base.get() + 8) * 1_000_000L; }
        @Override public int pendingReads() { return (int) base.get() + 9; }
        @Override public long workersLost() { return base.get() + 10; }
        @Override public long membershipChanges() { return base.get() + 11; }
    }

    /** A store of type {@code fake}, rank 2, whose only working calls are type, rank and stats. */
    static KVStore store(KVStoreStats stats) {
        return (KVStore) Proxy.newProxyInstance(KVStore.class.getClassLoader(), new Class<?>[] {KVStore.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "type" -> "fake";
                    case "rank" -> 2;
                    case "stats" -> stats;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void everyStatisticReachesItsMeterLive() {
        Stats stats = new Stats();
        MeterRegistry r = new SimpleMeterRegistry();
        try (KVStoreMeters meters = new KVStoreMeters(store(stats), Tags.of("job", "j1"))) {
            meters.bindTo(r);
            Tags t = Tags.of("kvstore", "fake", "rank", "2", "job", "j1");
            for (long base : new long[] {100, 5000}) {
                stats.base.set(base);
                assertEquals(base + 1, r.get(KVStoreMeters.PUSHES).tags(t).functionCounter().count());
                assertEquals(base + 2, r.get(KVStoreMeters.PULLS).tags(t).functionCounter().count());
                assertEquals(base + 3, r.get(KVStoreMeters.FAILED).tags(t).functionCounter().count());
                assertEquals(base + 4, r.get(KVStoreMeters.ROUNDS).tags(t).functionCounter().count());
                assertEquals(base + 5, r.get(KVStoreMeters.SENT).tags(t).functionCounter().count());
                assertEquals(base + 6, r.get(KVStoreMeters.RECEIVED).tags(t).functionCounter().count());
                assertEquals(base + 7, r.get(KVStoreMeters.LATENCY).tags(t).functionTimer().count());
                assertEquals(base + 8, r.get(KVStoreMeters.LATENCY).tags(t).functionTimer().totalTime(TimeUnit.MILLISECONDS), 1e-9);
                assertEquals(base + 9, r.get(KVStoreMeters.PENDING_READS).tags(t).gauge().value());
                assertEquals(base + 10, r.get(KVStoreMeters.LOST).tags(t).functionCounter().count());
                assertEquals(base + 11, r.get(KVStoreMeters.MEMBERSHIP).tags(t).functionCounter().count());
            }
            assertEquals(10, r.getMeters().size(), r.getMeters().toString());
        }
        assertTrue(r.getMeters().isEmpty(), "close removed the meters");
    }

    @Test
    void thePrometheusScrapeNamesThemWithTheirUnits() {
        Stats stats = new Stats();
        PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (KVStoreMeters meters = new KVStoreMeters(store(stats))) {
            meters.bindTo(r);
            String scrape = r.scrape();
            Map<String, Double> s = PrometheusScrapeTest.samples(scrape);
            String l = "{kvstore=\"fake\",rank=\"2\"}";
            assertEquals(101, PrometheusScrapeTest.value(s, "depengine_kvstore_pushes_total" + l, scrape));
            assertEquals(102, PrometheusScrapeTest.value(s, "depengine_kvstore_pulls_total" + l, scrape));
            assertEquals(103, PrometheusScrapeTest.value(s, "depengine_kvstore_failed_total" + l, scrape));
            assertEquals(104, PrometheusScrapeTest.value(s, "depengine_kvstore_rounds_total" + l, scrape));
            assertEquals(105, PrometheusScrapeTest.value(s, "depengine_kvstore_sent_bytes_total" + l, scrape));
            assertEquals(106, PrometheusScrapeTest.value(s, "depengine_kvstore_received_bytes_total" + l, scrape));
            assertEquals(107, PrometheusScrapeTest.value(s, "depengine_kvstore_round_latency_seconds_count" + l, scrape));
            assertEquals(0.108, PrometheusScrapeTest.value(s, "depengine_kvstore_round_latency_seconds_sum" + l, scrape), 1e-9);
            assertEquals(109, PrometheusScrapeTest.value(s, "depengine_kvstore_reads_pending" + l, scrape));
            assertEquals(110, PrometheusScrapeTest.value(s, "depengine_kvstore_workers_lost_total" + l, scrape));
            assertEquals(111, PrometheusScrapeTest.value(s, "depengine_kvstore_membership_changes_total" + l, scrape));
        }
    }

    @Test
    void aLocalStoresCountsReachTheMetersAfterARound() throws Exception {
        try (Engine engine = Engine.create("naive", EngineConfig.of(Map.of("depengine.hangDoctorMs", "0")));
             KVStore store = KVStore.open(engine, "local")) {
            Context ctx = Context.cpu(0);
            DeviceArray w = filled(engine, ctx, new float[] {1, 2, 3}, "w");
            DeviceArray g = filled(engine, ctx, new float[] {10, 20, 30}, "g");
            store.init("w", w);
            MeterRegistry r = new SimpleMeterRegistry();
            try (KVStoreMeters meters = new KVStoreMeters(store)) {
                meters.bindTo(r);
                Tags t = Tags.of("kvstore", "local", "rank", "0");
                store.push("w", g);
                store.pull("w", w);
                engine.waitForAll();
                assertEquals(1, r.get(KVStoreMeters.PUSHES).tags(t).functionCounter().count());
                assertEquals(1, r.get(KVStoreMeters.PULLS).tags(t).functionCounter().count());
                assertEquals(0, r.get(KVStoreMeters.FAILED).tags(t).functionCounter().count());
                assertEquals(0, r.get(KVStoreMeters.SENT).tags(t).functionCounter().count(), "local moves nothing");
                assertEquals(0, r.get(KVStoreMeters.PENDING_READS).tags(t).gauge().value());
            }
        }
    }

    private static DeviceArray filled(Engine engine, Context ctx, float[] data, String name) {
        Device device = Devices.device(ctx);
        DeviceBuffer b = device.allocate(4L * data.length);
        DeviceArray a = new DeviceArray(b, engine.newVariable(name));
        ByteBuffer host = ByteBuffer.allocateDirect(4 * data.length).order(ByteOrder.nativeOrder());
        host.asFloatBuffer().put(data);
        Memcpy memcpy = device.requirePrimitive(Memcpy.class);
        engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), host, b, 0), ctx, List.of(), List.of(a.var()),
                FnProperty.COPY_TO_DEVICE, 0, "fill " + name);
        return a;
    }
}
