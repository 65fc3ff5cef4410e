package org.depengine.benchmarks;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
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
 * What an engine's metrics cost on the push path (issue 38): zero-work ops pushed one by one from one thread
 * and waited for, ns per op. Shapes: 65,536 independent ops over 1,000 variables, or a chain of 65,536 ops on
 * one variable. Two comparisons, each interleaved in the same fork (odd iterations, warm-up included, are
 * the "with" side, even ones the "without"), so both sides share the JVM, its JIT state and the machine's
 * load a second apart; {@code report.MetricsCostReport} pairs the iterations up from JMH's JSON:
 * <ul>
 *   <li>{@code compare=meters}: one engine (the default timing interval, 64), with {@link EngineMeters}
 *   bound to a Prometheus registry that a thread scrapes every {@value #SCRAPE_MILLIS} ms (far more often
 *   than a Prometheus server does), or with nothing bound;</li>
 *   <li>{@code compare=timing}: two engines of the same kind, one timing 1 op in 64 (the default), one
 *   timing none ({@code depengine.metrics.timingSampleInterval=0}): what the sampled timing costs.</li>
 * </ul>
 * The engine's counts themselves cannot be switched off: the change that added them is measured against
 * the code before it with the push-path benchmarks (benchmarks/results/sections/metrics-cost.md).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 10, time = 1)
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

    /** meters (bound and scraped, or not) or timing (1 op in 64 timed, or none). */
    @Param({"meters", "timing"})
    public String compare;

    /** One engine and its variables; the ops it has been pushed, for the check. */
    private static final class Side {
        final Engine engine;
        final List<List<VarHandle>> writes = new ArrayList<>();
        long pushed;

        Side(String name, int interval, int vars) {
            engine = Engine.create(name, EngineConfig.of(Map.of("depengine.hangDoctorMs", "0",
                    "depengine.metrics.timingSampleInterval", Integer.toString(interval))));
            for (int i = 0; i < vars; i++) {
                writes.add(List.of(engine.newVariable("v" + i)));
            }
        }
    }

    private Side with;      // odd iterations
    private Side without;   // even iterations (the same engine as with for compare=meters)
    private Side current;
    private PrometheusMeterRegistry registry;
    private EngineMeters meters;
    private ScheduledExecutorService scraper;
    private volatile long scrapedChars;
    private int iteration; // iterations set up so far, warm-up included

    @Setup(Level.Trial)
    public void open() {
        int vars = shape.equals("chain") ? 1 : VARS;
        switch (compare) {
            case "meters":
                with = new Side(engine, 64, vars);
                without = with;
                break;
            case "timing":
                with = new Side(engine, 64, vars);
                without = new Side(engine, 0, vars);
                break;
            default:
                throw new IllegalArgumentException("compare=" + compare + ": meters or timing");
        }
    }

    /** Picks this iteration's side; for compare=meters binds the meters and starts the scraper, or removes them. */
    @Setup(Level.Iteration)
    public void choose() {
        iteration++;
        boolean odd = iteration % 2 == 1;
        current = odd ? with : without;
        if (compare.equals("meters") && odd) {
            registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            meters = new EngineMeters(current.engine);
            meters.bindTo(registry);
            scrapedChars = 0;
            scraper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "scraper");
                t.setDaemon(true);
                return t;
            });
            scraper.scheduleAtFixedRate(() -> scrapedChars += registry.scrape().length(), 0, SCRAPE_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public void push() {
        Side s = current;
        Engine e = s.engine;
        List<List<VarHandle>> w = s.writes;
        int n = w.size();
        for (int i = 0; i < OPS; i++) {
            e.pushSync(NOOP, Context.cpu(), List.of(), w.get(i % n), FnProperty.NORMAL, 0, "op");
        }
        e.waitForAll();
        s.pushed += OPS;
    }

    /** A broken engine, or meters that were not read, fail the run instead of posting a number. */
    @TearDown(Level.Iteration)
    public void check() {
        for (Side s : new Side[] {with, without}) {
            long counted = s.engine.metrics().opsPushed();
            if (counted != s.pushed) {
                throw new IllegalStateException("the engine counts " + counted + " ops pushed; the benchmark pushed " + s.pushed);
            }
        }
        if (meters != null) {
            double completed = registry.find(EngineMeters.COMPLETED).functionCounters().stream()
                    .mapToDouble(c -> c.count()).sum();
            if (scrapedChars == 0 || completed <= 0) {
                throw new IllegalStateException("the meters were not scraped, or show no op: " + scrapedChars + " chars, "
                        + completed + " ops completed");
            }
            scraper.shutdownNow();
            try {
                scraper.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            meters.close();
            scraper = null;
            meters = null;
            registry = null;
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        with.engine.close();
        if (without != with) {
            without.engine.close();
        }
    }
}
