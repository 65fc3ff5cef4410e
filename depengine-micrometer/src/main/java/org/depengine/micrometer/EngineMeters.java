package org.depengine.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.depengine.api.Engine;
import org.depengine.api.EngineMetrics;

/**
 * Binds an engine's {@link Engine#metrics()} to Micrometer. Every meter is tagged {@code engine} (the
 * engine's name) and with the tags given to the constructor.
 *
 * <p>Per worker group, Micrometer's executor meters, tagged {@code name} (the group's name, e.g.
 * {@code depengine-perdevice-cpu0-worker}), so that dashboards built for Java executors show it:
 * <ul>
 *   <li>{@value #ACTIVE} (gauge, threads running an op), {@value #QUEUED} (gauge, ready ops in the queue),
 *   {@value #COMPLETED} (counter, ops run), {@value #POOL_SIZE} (gauge, threads);</li>
 *   <li>the timers {@value #RUN} (run time) and {@value #IDLE} (queue wait). The engine times one op in
 *   {@link EngineMetrics#timingSampleInterval()} (setting {@code depengine.metrics.timingSampleInterval},
 *   default 64): each timer's count is the ops timed, its total their time, so its mean is the timed ops'
 *   mean. Multiply the mean by {@value #COMPLETED}'s rate for the time spent.</li>
 * </ul>
 * Groups the engine makes later (a threaded engine makes a device's groups at its first op there) get
 * their meters when made.
 *
 * <p>Engine-wide: the counters {@value #PUSHED}, {@value #FAILED}, {@value #SKIPPED}, {@value #REPLAYED}
 * and the gauges {@value #PENDING} (ops pushed and not finished) and {@value #WAITERS} (threads blocked in
 * a wait), as {@link EngineMetrics} defines them.
 *
 * <p>Every value is read from the engine when the registry reads the meter (a scrape): binding adds
 * nothing to the engine's push path. Thread-safe; {@link #close()} removes the meters it registered.
 */
public final class EngineMeters implements MeterBinder, AutoCloseable {
    /** Gauge: a group's threads running an op now. */
    public static final String ACTIVE = "executor.active";
    /** Gauge: ready ops in a group's queue now. */
    public static final String QUEUED = "executor.queued";
    /** Counter: ops a group's threads have run. */
    public static final String COMPLETED = "executor.completed";
    /** Gauge: a group's threads. */
    public static final String POOL_SIZE = "executor.pool.size";
    /** Timer: the timed ops' run time. */
    public static final String RUN = "executor";
    /** Timer: the timed ops' queue wait. */
    public static final String IDLE = "executor.idle";
    /** Counter: ops pushed. */
    public static final String PUSHED = "depengine.ops.pushed";
    /** Counter: ops that failed. */
    public static final String FAILED = "depengine.ops.failed";
    /** Counter: ops skipped. */
    public static final String SKIPPED = "depengine.ops.skipped";
    /** Counter: ops pushed by replays. */
    public static final String REPLAYED = "depengine.ops.replayed";
    /** Gauge: ops pushed and not finished. */
    public static final String PENDING = "depengine.ops.pending";
    /** Gauge: threads blocked in a wait of the engine. */
    public static final String WAITERS = "depengine.waiters";

    private final EngineMetrics metrics;
    private final Tags tags;
    private final BoundMeters meters;
    private final Consumer<EngineMetrics.Group> onGroup = this::groupMade;
    private final List<MeterRegistry> registries = new ArrayList<>(); // guarded by this
    private final Map<MeterRegistry, Set<String>> groupsBound = new IdentityHashMap<>(); // guarded by this

    /**
     * Meters for {@code engine}, tagged {@code engine} with its name.
     *
     * @param engine the engine
     * @throws UnsupportedOperationException if the engine offers no metrics
     */
    public EngineMeters(Engine engine) {
        this(engine, Tags.empty());
    }

    /**
     * Meters for {@code engine}, tagged {@code engine} with its name and with {@code tags} (to tell apart two
     * engines of one name in one registry).
     *
     * @param engine the engine
     * @param tags more tags for every meter
     * @throws UnsupportedOperationException if the engine offers no metrics
     */
    public EngineMeters(Engine engine, Iterable<Tag> tags) {
        Objects.requireNonNull(engine, "engine");
        this.metrics = engine.metrics();
        this.tags = Tags.of(tags).and("engine", engine.name());
        this.meters = new BoundMeters("EngineMeters of engine '" + engine.name() + "'");
    }

    /**
     * Registers the meters with {@code registry}: the engine-wide ones, one set per worker group now, and
     * one per group the engine makes later.
     *
     * @throws IllegalStateException if this binder is closed, or the registry already has one of these
     *     meters with the same tags (bind each engine once per registry; tag engines of one name apart)
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        boolean first;
        synchronized (this) {
            meters.checkOpen();
            first = registries.isEmpty();
            bindEngine(registry);
            for (EngineMetrics.Group g : metrics.groups()) {
                bindGroup(registry, g);
            }
            registries.add(registry);
        }
        if (first) {
            metrics.addGroupListener(onGroup); // tells of the groups now (bound above: skipped) and later ones
        }
    }

    /** Stops registering new groups' meters and removes every meter registered. Idempotent. */
    @Override
    public void close() {
        metrics.removeGroupListener(onGroup);
        meters.close();
    }

    private synchronized void groupMade(EngineMetrics.Group g) {
        if (meters.isClosed()) {
            return;
        }
        for (MeterRegistry r : registries) {
            bindGroup(r, g);
        }
    }

    private void bindEngine(MeterRegistry r) {
        EngineMetrics m = metrics;
        meters.counter(r, PUSHED, tags, m, EngineMetrics::opsPushed, null,
                "Ops pushed to the engine and accepted (a replayed op, a deletion and a bulk's merged op count as one)");
        meters.counter(r, FAILED, tags, m, EngineMetrics::opsFailed, null,
                "Ops that failed themselves (their function threw or called fail, or their device failed)");
        meters.counter(r, SKIPPED, tags, m, EngineMetrics::opsSkipped, null,
                "Ops skipped instead of running (an input's writer failed, or the engine was shutting down)");
        meters.counter(r, REPLAYED, tags, m, EngineMetrics::opsReplayed, null,
                "Ops pushed by replays of captured graphs");
        meters.gauge(r, PENDING, tags, m, EngineMetrics::pendingOps, null, "Ops pushed and not yet finished");
        meters.gauge(r, WAITERS, tags, m, EngineMetrics::waitingThreads, "threads",
                "Threads blocked in a wait of the engine");
    }

    private void bindGroup(MeterRegistry r, EngineMetrics.Group g) {
        if (!groupsBound.computeIfAbsent(r, x -> new HashSet<>()).add(g.name())) {
            return; // bound already (a group made while bindTo listed the groups)
        }
        Tags t = tags.and("name", g.name());
        meters.gauge(r, ACTIVE, t, g, EngineMetrics.Group::active, "threads", "Threads of the group running an op");
        meters.gauge(r, QUEUED, t, g, EngineMetrics.Group::queued, "tasks", "Ready ops waiting in the group's queue");
        meters.counter(r, COMPLETED, t, g, EngineMetrics.Group::completed, "tasks", "Ops the group's threads have run");
        meters.gauge(r, POOL_SIZE, t, g, EngineMetrics.Group::threads, "threads", "The group's threads");
        meters.timer(r, RUN, t, g, x -> x.runTime().count(), x -> x.runTime().totalNanos(),
                "Run time of the timed ops (one op in depengine.metrics.timingSampleInterval)");
        meters.timer(r, IDLE, t, g, x -> x.queueWait().count(), x -> x.queueWait().totalNanos(),
                "Time the timed ops waited, ready, before a thread of the group started them");
    }
}
