package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import org.depengine.api.Capture;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.EngineMetrics;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.Test;

/**
 * {@link Engine#metrics()}: the engine-wide op counts after a known workload, the worker groups' counts,
 * the sampled timings at an interval of 1 and 0, the group listener, and the setting's error.
 */
public abstract class MetricsConformance extends EngineTestBase {
    private static final String INTERVAL = "depengine.metrics.timingSampleInterval";

    private static void eventually(long expected, LongSupplier value, String what) {
        Eventually.equals(expected, value, what);
    }

    private static long sum(EngineMetrics m, ToLongFunction<EngineMetrics.Group> f) {
        return m.groups().stream().mapToLong(f).sum();
    }

    /** An engine of the tested kind with the setup's settings and {@code more}; closed by the caller. */
    private Engine engineWith(Map<String, String> more) {
        Map<String, String> s = new HashMap<>(settings());
        s.put("depengine.hangDoctorMs", "0");
        s.putAll(more);
        return Engine.create(engineName(), EngineConfig.of(s));
    }

    @Test
    public void theOpCountsAreThoseOfAKnownWorkload() {
        EngineMetrics m = engine.metrics();
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        VarHandle c = engine.newVariable("c");
        for (int i = 0; i < 10; i++) {
            engine.op("write a").on(opContext()).writes(a).run(ctx -> { });
        }
        engine.waitForVar(a); // a wait marker: not an op of the user's
        engine.op("boom").on(opContext()).writes(b).run(ctx -> {
            throw new IllegalStateException("boom");
        });
        for (int i = 0; i < 3; i++) {
            engine.op("after boom").on(opContext()).reads(b).writes(c).run(ctx -> { });
        }
        Graph step;
        try (Capture cap = engine.capture()) {
            engine.op("step 1").on(opContext()).writes(a).run(ctx -> { });
            engine.op("step 2").on(opContext()).writes(a).run(ctx -> { });
            step = cap.graph();
        }
        for (int i = 0; i < 3; i++) {
            step.replay();
        }
        assertThrows(EngineException.class, () -> engine.waitForAll(BOUND));
        assertEquals(20, m.opsPushed(), m.toString());
        assertEquals(1, m.opsFailed(), m.toString());
        assertEquals(3, m.opsSkipped(), m.toString());
        assertEquals(6, m.opsReplayed(), m.toString());
        assertEquals(0, m.pendingOps(), m.toString());
        assertEquals(0, m.waitingThreads(), m.toString());
        // Every op here runs on a group's thread (none is an inline ASYNC or deletion op).
        eventually(20, () -> sum(m, EngineMetrics.Group::completed), "ops run by the groups");
        assertTrue(m == engine.metrics(), "metrics() returns one view");
    }

    @Test
    public void atIntervalOneEveryOpIsTimedAndAtZeroNone() {
        for (int interval : new int[] {1, 0}) {
            try (Engine e = engineWith(Map.of(INTERVAL, Integer.toString(interval)))) {
                EngineMetrics m = e.metrics();
                assertEquals(interval, m.timingSampleInterval());
                VarHandle v = e.newVariable("v");
                for (int i = 0; i < 20; i++) {
                    e.op("timed").on(opContext()).writes(v).run(ctx -> { });
                    e.waitForVar(v); // one op in flight at a time: no two stamps share a slot
                }
                long expected = interval == 1 ? 20 : 0;
                eventually(expected, () -> sum(m, g -> g.runTime().count()), "run times taken at interval " + interval);
                eventually(expected, () -> sum(m, g -> g.queueWait().count()), "queue waits taken at interval " + interval);
                eventually(20, () -> sum(m, EngineMetrics.Group::completed), "ops run");
                assertTrue(sum(m, g -> g.runTime().totalNanos()) >= 0);
                if (interval == 0) {
                    assertEquals(0, sum(m, g -> g.runTime().totalNanos()));
                }
            }
        }
    }

    @Test
    public void theDefaultIntervalTimesSomeOpsOnly() {
        EngineMetrics m = engine.metrics();
        assertEquals(64, m.timingSampleInterval());
        VarHandle v = engine.newVariable("v");
        for (int i = 0; i < 2048; i++) {
            engine.op("op").on(opContext()).writes(v).run(ctx -> { });
        }
        engine.waitForAll(BOUND);
        eventually(2048, () -> sum(m, EngineMetrics.Group::completed), "ops run");
        long timed = sum(m, g -> g.runTime().count());
        // 2048 ids hashed into 64 buckets: about 32 timed; far from none and from all.
        assertTrue(timed > 8 && timed < 96, "timed " + timed + " of 2048 ops at interval 64");
    }

    @Test
    public void groupListenersHearOfEveryGroupOnceAndAThrowingOneIsContained() {
        EngineMetrics m = engine.metrics();
        Set<String> heard = ConcurrentHashMap.newKeySet();
        List<String> twice = new ArrayList<>();
        Consumer<EngineMetrics.Group> listener = g -> {
            if (!heard.add(g.name())) {
                twice.add(g.name());
            }
        };
        m.addGroupListener(g -> {
            throw new IllegalStateException("a listener that throws");
        });
        m.addGroupListener(listener);
        VarHandle v = engine.newVariable("v");
        engine.op("first").on(opContext()).writes(v).run(ctx -> { });
        engine.waitForAll(BOUND);
        Set<String> names = new TreeSet<>();
        for (EngineMetrics.Group g : m.groups()) {
            names.add(g.name());
            assertTrue(g.name().startsWith("depengine-" + engine.name() + "-"), g.name());
            assertTrue(g.threads() >= 1, g.name() + " has " + g.threads() + " threads");
        }
        assertFalse(names.isEmpty(), "an engine that ran an op has a group");
        assertEquals(names, new TreeSet<>(heard), "the listener heard of every group");
        assertTrue(twice.isEmpty(), "heard twice: " + twice);
        m.removeGroupListener(listener);
    }

    @Test
    public void activeCountsTheThreadsRunningAnOp() throws Exception {
        EngineMetrics m = engine.metrics();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        VarHandle v = engine.newVariable("v");
        Thread pusher = new Thread(() -> engine.op("held").on(opContext()).writes(v).property(FnProperty.NORMAL)
                .run(ctx -> {
                    started.countDown();
                    release.await();
                }), "metrics-pusher");
        pusher.start();
        assertTrue(started.await(BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS), "the held op started");
        eventually(1, () -> sum(m, g -> g.active()), "threads running an op while one is held");
        release.countDown();
        joinBounded(pusher);
        engine.waitForAll(BOUND);
        eventually(0, () -> sum(m, g -> g.active()), "threads running an op once all are done");
        eventually(0, () -> sum(m, EngineMetrics.Group::queued), "ops queued once all are done");
    }

    @Test
    public void anInvalidTimingIntervalNamesTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> engineWith(Map.of(INTERVAL, "3")));
        assertTrue(e.getMessage().contains(INTERVAL) && e.getMessage().contains("'3' is invalid: expected 0 or a power of "
                + "two in [1, 65536]"), e.getMessage());
    }
}
