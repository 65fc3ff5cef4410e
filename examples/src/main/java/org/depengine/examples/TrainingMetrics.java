package org.depengine.examples;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Engine;
import org.depengine.api.EngineMetrics;
import org.depengine.kvstore.KVStore;
import org.depengine.micrometer.EngineMeters;
import org.depengine.micrometer.KVStoreMeters;

/**
 * {@code MultiDeviceTraining --metrics}: the engine's and the store's Micrometer meters
 * ({@code depengine-micrometer}), summed up at the end; with {@code --metrics-port}, also served in
 * Prometheus's text format at {@code http://127.0.0.1:PORT/metrics} while the program runs (loopback only).
 */
final class TrainingMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final EngineMeters engineMeters;
    private final KVStoreMeters storeMeters;
    private final HttpServer server;         // null without a port
    private final Engine engine;

    /**
     * Binds the meters and, if {@code port} is not null, serves them.
     *
     * @param port the loopback port to serve on (0: a free one), or null not to serve
     * @throws IOException if the port cannot be bound
     */
    TrainingMetrics(Engine engine, KVStore kv, Integer port) throws IOException {
        this.engine = engine;
        PrometheusMeterRegistry prometheus = port == null ? null : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.registry = prometheus != null ? prometheus : new SimpleMeterRegistry();
        this.engineMeters = new EngineMeters(engine);
        engineMeters.bindTo(registry);
        this.storeMeters = new KVStoreMeters(kv);
        storeMeters.bindTo(registry);
        if (prometheus != null) {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            server.createContext("/metrics", exchange -> {
                byte[] body = prometheus.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
        } else {
            server = null;
        }
    }

    /** The address the meters are served at, or null when not served. */
    String url() {
        return server == null ? null
                : "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort() + "/metrics";
    }

    /** The registry the meters are in. */
    MeterRegistry registry() {
        return registry;
    }

    /** The meters summed up, from the registry: the op counts, one line per worker group, the store's. */
    String summary() {
        StringBuilder b = new StringBuilder();
        int interval = engine.metrics().timingSampleInterval();
        b.append(String.format(Locale.ROOT, "metrics (Micrometer; %s):%n", interval == 0 ? "no op timed"
                : interval == 1 ? "every op timed" : "1 op in " + interval + " timed"));
        b.append(String.format(Locale.ROOT, "  ops: pushed %d, failed %d, skipped %d, replayed %d; pending %d, waiters %d%n",
                count(EngineMeters.PUSHED), count(EngineMeters.FAILED), count(EngineMeters.SKIPPED),
                count(EngineMeters.REPLAYED), (long) gauge(EngineMeters.PENDING, null), (long) gauge(EngineMeters.WAITERS, null)));
        b.append(String.format(Locale.ROOT, "  %-36s %7s %10s %10s %12s %6s%n", "executor (tag name)", "threads",
                "completed", "run mean", "queue mean", "timed"));
        List<String> names = new ArrayList<>();
        for (EngineMetrics.Group g : engine.metrics().groups()) {
            names.add(g.name());
        }
        for (String name : names) {
            FunctionTimer run = registry.find(EngineMeters.RUN).tag("name", name).functionTimer();
            FunctionTimer idle = registry.find(EngineMeters.IDLE).tag("name", name).functionTimer();
            FunctionCounter done = registry.find(EngineMeters.COMPLETED).tag("name", name).functionCounter();
            if (run == null || idle == null || done == null) {
                continue;
            }
            b.append(String.format(Locale.ROOT, "  %-36s %7d %10d %10s %12s %6d%n", name,
                    (long) gauge(EngineMeters.POOL_SIZE, name), (long) done.count(), micros(run), micros(idle), (long) run.count()));
        }
        FunctionTimer latency = registry.find(KVStoreMeters.LATENCY).functionTimer();
        b.append(String.format(Locale.ROOT, "  kvstore: pushes %d, pulls %d, failed %d, rounds %d, sent %d B, received %d B, "
                + "round latency mean %s, pending reads %d, workers lost %d, membership changes %d%n",
                count(KVStoreMeters.PUSHES), count(KVStoreMeters.PULLS), count(KVStoreMeters.FAILED),
                count(KVStoreMeters.ROUNDS), count(KVStoreMeters.SENT), count(KVStoreMeters.RECEIVED),
                latency == null ? "-" : micros(latency), (long) gauge(KVStoreMeters.PENDING_READS, null),
                count(KVStoreMeters.LOST), count(KVStoreMeters.MEMBERSHIP)));
        return b.toString();
    }

    private long count(String name) {
        FunctionCounter c = registry.find(name).functionCounter();
        return c == null ? -1 : (long) c.count();
    }

    private double gauge(String name, String group) {
        Gauge g = group == null ? registry.find(name).gauge() : registry.find(name).tag("name", group).gauge();
        return g == null ? Double.NaN : g.value();
    }

    private static String micros(FunctionTimer t) {
        return t.count() == 0 ? "-" : String.format(Locale.ROOT, "%.1f µs", t.mean(TimeUnit.NANOSECONDS) / 1e3);
    }

    /** Stops serving and removes the meters. */
    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
        storeMeters.close();
        engineMeters.close();
    }
}
