package org.depengine.benchmarks;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.depengine.micrometer.EngineMeters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the engine's Micrometer meters cost on the push path (issue 38): zero-work ops pushed one by one
 * from one thread and waited for, ns per op, with {@code metrics=none} (no binder: the engine's own
 * counting and its timing of 1 op in {@code interval}, which every engine always does) and
 * {@code metrics=meters} ({@link EngineMeters} bound to a Prometheus registry that a thread scrapes every
 * {@value #SCRAPE_MILLIS} ms, far more often than a Prometheus server does). {@code interval} (the setting
 * {@code depengine.metrics.timingSampleInterval}) set to 0 or 1 shows the timing's own cost. Shapes: 65,536
 * independent ops over 1,000 variables, or a chain of 65,536 ops on one variable.
 *
 * <p>Run both orders of {@code metrics} to interleave them (benchmarks/README.md, "Metrics cost"):
 * {@code java -jar benchmarks/target/benchmarks.jar MetricsCost -p metrics=none,meters} then
 * {@code -p metrics=meters,none}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class MetricsCost {
    static final int OPS = 65_536;
    static final int VARS = 1_000;
    static final int SCRAPE_MILLIS = 100;
    private static final SyncFn NOOP = ctx -> { };

    /** The engine. */
    @Param({"naive", "pooled", "perdevice"})
    public String engine;

    /** independent (1,000 variables, round robin) or chain (one variable). */
    @Param({"independent", "chain"})
    public String shape;

    /** none, or meters (bound and scraped). */
    @Param({"none", "meters"})
    public String metrics;

    /** The engine's timing sample interval. */
    @Param({"64"})
    public int interval;

    private Engine e;
    private List<List<VarHandle>> writes;
    private PrometheusMeterRegistry registry;
    private EngineMeters meters;
    private ScheduledExecutorService scraper;
    private volatile long scrapedChars;
    private long runs;

    @Setup(Level.Trial)
    public void open() {
        e = Engine.create(engine, EngineConfig.of(Map.of("depengine.hangDoctorMs", "0",
                "depengine.metrics.timingSampleInterval", Integer.toString(interval))));
        int n = shape.equals("chain") ? 1 : VARS;
        VarHandle[] vars = new VarHandle[n];
        writes = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            vars[i] = e.newVariable("v" + i);
            writes.add(List.of(vars[i]));
        }
        if (metrics.equals("meters")) {
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            meters = new EngineMeters(e);
            meters.bindTo(registry);
            scraper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "scraper");
                t.setDaemon(true);
                return t;
            });
            scraper.scheduleAtFixedRate(() -> scrapedChars += registry.scrape().length(), SCRAPE_MILLIS, SCRAPE_MILLIS,
                    TimeUnit.MILLISECONDS);
        } else if (!metrics.equals("none")) {
            throw new IllegalArgumentException("metrics=" + metrics + ": none or meters");
        }
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public void push() {
        List<List<VarHandle>> w = writes;
        int n = w.size();
        for (int i = 0; i < OPS; i++) {
            e.pushSync(NOOP, Context.cpu(), List.of(), w.get(i % n), FnProperty.NORMAL, 0, "op");
        }
        e.waitForAll();
        runs++;
    }

    /** A broken engine, or meters that stopped being read, fail the run instead of posting a number. */
    @TearDown(Level.Iteration)
    public void check() {
        long pushed = e.metrics().opsPushed();
        if (pushed != runs * OPS) {
            throw new IllegalStateException("the engine counts " + pushed + " ops pushed; the benchmark pushed " + runs * OPS);
        }
        if (meters != null && scrapedChars == 0) {
            throw new IllegalStateException("the registry was never scraped");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (scraper != null) {
            scraper.shutdownNow();
            meters.close();
        }
        e.close();
    }
}
