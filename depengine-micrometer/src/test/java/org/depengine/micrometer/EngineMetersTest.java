package org.depengine.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.EngineMetrics;
import org.depengine.api.spi.EngineConfig;
import org.depengine.testkit.Eventually;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineMeters} on every engine with a {@link SimpleMeterRegistry}: the meters' names, tags and
 * values after a known workload ({@link Workload}), the groups made after binding, two registries,
 * a second bind refused, and close.
 */
class EngineMetersTest {
    static final Duration BOUND = Duration.ofSeconds(60);

    static Engine engine(String name, int timingInterval) {
        return Engine.create(name, EngineConfig.of(Map.of("depengine.hangDoctorMs", "0",
                "depengine.metrics.timingSampleInterval", Integer.toString(timingInterval),
                "depengine.cpu.workers", "2", "depengine.pooled.workers", "2")));
    }

    /** Waits for {@code value} to reach {@code expected}: a worker counts an op just after it finished. */
    static void eventually(double expected, DoubleSupplier value, String what) {
        Eventually.equals((long) expected, () -> (long) value.getAsDouble(), what);
    }

    static double sum(MeterRegistry r, String name, String engine) {
        return r.find(name).tag("engine", engine).functionCounters().stream().mapToDouble(c -> c.count()).sum()
                + r.find(name).tag("engine", engine).gauges().stream().mapToDouble(g -> g.value()).sum();
    }

    static double timerCount(MeterRegistry r, String name, String engine) {
        return r.find(name).tag("engine", engine).functionTimers().stream().mapToDouble(FunctionTimer::count).sum();
    }

    @ParameterizedTest
    @ValueSource(strings = {"naive", "pooled", "perdevice"})
    void theMetersShowAKnownWorkload(String name) {
        MeterRegistry r = new SimpleMeterRegistry();
        try (Engine e = engine(name, 1); EngineMeters meters = new EngineMeters(e)) {
            meters.bindTo(r); // before any op: perdevice makes its cpu group at the first push
            Workload.run(e);
            assertThrows(EngineException.class, () -> e.waitForAll(BOUND));
            assertEquals(Workload.PUSHED, r.get(EngineMeters.PUSHED).tag("engine", name).functionCounter().count());
            assertEquals(Workload.FAILED, r.get(EngineMeters.FAILED).tag("engine", name).functionCounter().count());
            assertEquals(Workload.SKIPPED, r.get(EngineMeters.SKIPPED).tag("engine", name).functionCounter().count());
            assertEquals(Workload.REPLAYED, r.get(EngineMeters.REPLAYED).tag("engine", name).functionCounter().count());
            assertEquals(0, r.get(EngineMeters.PENDING).tag("engine", name).gauge().value());
            assertEquals(0, r.get(EngineMeters.WAITERS).tag("engine", name).gauge().value());
            eventually(Workload.PUSHED, () -> sum(r, EngineMeters.COMPLETED, name), "executor.completed over the groups");
            // Interval 1: every op run is timed, its queue wait too (one op at a time in flight per variable
            // chain here; a lost stamp would show as a smaller count).
            eventually(Workload.PUSHED, () -> timerCount(r, EngineMeters.RUN, name), "executor timer count");
            assertTrue(timerCount(r, EngineMeters.IDLE, name) <= Workload.PUSHED);
            for (EngineMetrics.Group g : e.metrics().groups()) {
                Tags t = Tags.of("engine", name, "name", g.name());
                assertEquals(g.threads(), r.get(EngineMeters.POOL_SIZE).tags(t).gauge().value(), g.name());
                assertEquals(0, r.get(EngineMeters.QUEUED).tags(t).gauge().value(), g.name());
                assertEquals(g.completed(), r.get(EngineMeters.COMPLETED).tags(t).functionCounter().count(), g.name());
                FunctionTimer run = r.get(EngineMeters.RUN).tags(t).functionTimer();
                assertEquals(g.runTime().totalNanos(), run.totalTime(TimeUnit.NANOSECONDS), 1.0, g.name());
                assertEquals(g.runTime().count(), run.count(), g.name());
                eventually(0, () -> r.get(EngineMeters.ACTIVE).tags(t).gauge().value(), "executor.active of " + g.name());
            }
        }
    }

    @Test
    void groupsMadeAfterBindingGetMetersInEveryRegistryAndCloseRemovesThem() {
        MeterRegistry a = new SimpleMeterRegistry();
        MeterRegistry b = new SimpleMeterRegistry();
        try (Engine e = engine("perdevice", 64)) {
            EngineMeters meters = new EngineMeters(e, Tags.of("job", "test"));
            meters.bindTo(a);
            meters.bindTo(b);
            assertNull(a.find(EngineMeters.COMPLETED).meter(), "no group before the first push");
            e.op("on cpu 3").on(org.depengine.api.Context.cpu(3)).writes(e.newVariable()).run(ctx -> { });
            e.waitForAll(BOUND);
            for (MeterRegistry r : new MeterRegistry[] {a, b}) {
                Tags t = Tags.of("engine", "perdevice", "job", "test", "name", "depengine-perdevice-cpu3-worker");
                eventually(1, () -> r.get(EngineMeters.COMPLETED).tags(t).functionCounter().count(), "the new group's count");
                assertEquals(2, r.get(EngineMeters.POOL_SIZE).tags(t).gauge().value());
            }
            meters.close();
            assertTrue(a.getMeters().isEmpty(), "close removed every meter: " + a.getMeters());
            assertTrue(b.getMeters().isEmpty());
            assertThrows(IllegalStateException.class, () -> meters.bindTo(a), "a closed binder binds no more");
            e.op("on cpu 4").on(org.depengine.api.Context.cpu(4)).writes(e.newVariable()).run(ctx -> { });
            e.waitForAll(BOUND);
            assertTrue(a.getMeters().isEmpty(), "no meters for a group made after close");
        }
    }

    @Test
    void aSecondBinderOfTheSameEngineIsRefusedNamingTheFix() {
        MeterRegistry r = new SimpleMeterRegistry();
        try (Engine e = engine("naive", 64); EngineMeters first = new EngineMeters(e);
             EngineMeters second = new EngineMeters(e)) {
            first.bindTo(r);
            IllegalStateException x = assertThrows(IllegalStateException.class, () -> second.bindTo(r));
            assertTrue(x.getMessage().contains("already has a meter depengine.ops.pushed")
                    && x.getMessage().contains("distinguishing tag"), x.getMessage());
            try (EngineMeters tagged = new EngineMeters(e, Tags.of("copy", "2"))) {
                tagged.bindTo(r); // told apart by a tag: accepted
            }
        }
    }
}
