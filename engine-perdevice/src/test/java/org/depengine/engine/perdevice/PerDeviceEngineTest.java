package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.VarHandle;
import org.depengine.api.device.StreamKind;
import org.depengine.api.spi.EngineConfig;
import org.depengine.testkit.AsyncStandInDevices;
import org.junit.jupiter.api.Test;

/** What only the per-device engine does: its worker layout, priorities, settings and device streams. */
class PerDeviceEngineTest {

    private static Engine engine(Map<String, String> settings) {
        return Engine.create("perdevice", EngineConfig.of(settings));
    }

    @Test
    void priorityOrderHoldsOnABlockedOneThreadPool() throws Exception {
        try (Engine e = engine(Map.of("depengine.cpu.priorityWorkers", "1"))) {
            CountDownLatch blockerRunning = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            e.pushSync(ctx -> {
                blockerRunning.countDown();
                release.await();
            }, Context.cpu(), List.of(), List.of(e.newVariable()), FnProperty.CPU_PRIORITIZED, 100, "blocker");
            assertTrue(blockerRunning.await(60, TimeUnit.SECONDS));
            List<String> order = Collections.synchronizedList(new ArrayList<>());
            int[] priorities = {1, 5, 3, 5, 2, 0, 3};
            for (int i = 0; i < priorities.length; i++) {
                String tag = "p" + priorities[i] + "#" + i;
                e.pushSync(ctx -> order.add(tag), Context.cpu(), List.of(), List.of(e.newVariable()),
                        FnProperty.CPU_PRIORITIZED, priorities[i], tag);
            }
            release.countDown();
            e.waitForAll();
            assertEquals(List.of("p5#1", "p5#3", "p3#2", "p3#6", "p2#4", "p1#0", "p0#5"), order);
        }
    }

    @Test
    void threadsAreNamedByEngineDeviceAndRole() {
        try (Engine e = engine(Map.of())) {
            Map<String, String> seen = new ConcurrentHashMap<>();
            e.pushSync(ctx -> seen.put("cpu1", Thread.currentThread().getName()), Context.cpu(1), List.of(), List.of(e.newVariable()));
            e.pushSync(ctx -> seen.put("prio", Thread.currentThread().getName()), Context.cpu(), List.of(), List.of(e.newVariable()),
                    FnProperty.CPU_PRIORITIZED, 0, null);
            e.pushSync(ctx -> seen.put("compute", Thread.currentThread().getName()), Context.of(AsyncStandInDevices.TYPE, 1), List.of(), List.of(e.newVariable()));
            e.pushSync(ctx -> seen.put("h2d", Thread.currentThread().getName()), Context.of(AsyncStandInDevices.TYPE, 1), List.of(), List.of(e.newVariable()),
                    FnProperty.COPY_TO_DEVICE, 0, null);
            e.pushSync(ctx -> seen.put("d2h", Thread.currentThread().getName()), Context.of(AsyncStandInDevices.TYPE, 1), List.of(), List.of(e.newVariable()),
                    FnProperty.COPY_FROM_DEVICE, 0, null);
            e.waitForAll();
            assertTrue(seen.get("cpu1").matches("depengine-perdevice-cpu1-worker-\\d+"), seen.get("cpu1"));
            assertTrue(seen.get("prio").matches("depengine-perdevice-cpu-priority-\\d+"), seen.get("prio"));
            assertTrue(seen.get("compute").matches("depengine-perdevice-testkit_async1-compute-\\d+"), seen.get("compute"));
            assertTrue(seen.get("h2d").matches("depengine-perdevice-testkit_async1-h2d-\\d+"), seen.get("h2d"));
            assertTrue(seen.get("d2h").matches("depengine-perdevice-testkit_async1-d2h-\\d+"), seen.get("d2h"));
        }
    }

    @Test
    void deviceWorkersOwnTheirStreamsAndOpsCompleteWhenTheDeviceSaysSo() {
        try (Engine e = engine(Map.of("depengine.device.workers", "2"))) {
            Set<Object> streams = ConcurrentHashMap.newKeySet();
            AtomicReference<String> wrongKind = new AtomicReference<>();
            VarHandle v = e.newVariable("v");
            long[] value = {0};
            for (int i = 0; i < 200; i++) {
                FnProperty p = i % 3 == 0 ? FnProperty.COPY_TO_DEVICE : i % 3 == 1 ? FnProperty.NORMAL : FnProperty.COPY_FROM_DEVICE;
                e.pushSync(ctx -> {
                    record(ctx, p, streams, wrongKind);
                    value[0]++;
                }, Context.of(AsyncStandInDevices.TYPE, 0), List.of(), List.of(v), p, 0, null);
            }
            e.waitForVar(v);
            assertEquals(200, value[0]);
            assertEquals(200, v.version());
            assertEquals(null, wrongKind.get());
            assertTrue(streams.size() >= 3 && streams.size() <= 4, "one stream per worker: " + streams.size());
        }
    }

    private static void record(RunContext ctx, FnProperty p, Set<Object> streams, AtomicReference<String> wrong) {
        streams.add(ctx.stream());
        if (ctx.stream().kind() != StreamKind.of(p)) {
            wrong.set(p + " ran on a " + ctx.stream().kind() + " stream");
        }
        if (((AsyncStandInDevices.StandInStream) ctx.stream()).boundTo() != Thread.currentThread()) {
            wrong.set("stream not bound to its worker");
        }
    }

    /**
     * A reader on another stream of the same device is released when the writer launches and waits for
     * it on the device: its function runs (and enqueues its work) while the writer's device work is
     * still held back, and its work still sees the writer's result.
     */
    @Test
    void aReaderOnAnotherStreamOfTheDeviceWaitsOnTheDevice() throws Exception {
        try (Engine e = engine(Map.of())) {
            VarHandle v = e.newVariable("v");
            CountDownLatch writerMayFinish = new CountDownLatch(1);
            CountDownLatch readerLaunched = new CountDownLatch(1);
            AtomicLong cell = new AtomicLong();
            AtomicLong seen = new AtomicLong(-1);
            e.pushSync(ctx -> fake(ctx).enqueue(() -> {
                await(writerMayFinish);
                cell.set(42);
            }), FAKE0, List.of(), List.of(v), FnProperty.NORMAL, 0, "writer");
            e.pushSync(ctx -> {
                fake(ctx).enqueue(() -> seen.set(cell.get()));
                readerLaunched.countDown();
            }, FAKE0, List.of(v), List.of(), FnProperty.COPY_FROM_DEVICE, 0, "reader");
            assertTrue(readerLaunched.await(60, TimeUnit.SECONDS), "the reader did not wait on the host");
            writerMayFinish.countDown();
            e.waitForAll();
            assertEquals(42, seen.get(), "the reader's device work ran before the writer's");
            assertEquals(1L, e.diagnostics().counters().get("deviceWaits"));
            assertEquals(0L, e.diagnostics().counters().get("hostDeferrals"));
        }
    }

    /** A CPU reader of a device op's output is deferred on the host until the device work is done. */
    @Test
    void aCpuReaderOfADeviceOpIsDeferredUntilTheDeviceIsDone() throws Exception {
        try (Engine e = engine(Map.of())) {
            VarHandle v = e.newVariable("v");
            CountDownLatch writerMayFinish = new CountDownLatch(1);
            AtomicLong cell = new AtomicLong();
            AtomicLong seen = new AtomicLong(-1);
            e.pushSync(ctx -> fake(ctx).enqueue(() -> {
                await(writerMayFinish);
                cell.set(42);
            }), FAKE0, List.of(), List.of(v), FnProperty.NORMAL, 0, "writer");
            e.pushSync(ctx -> seen.set(cell.get()), Context.cpu(), List.of(v), List.of(), FnProperty.NORMAL, 0, "cpuReader");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!stateOf(e, "cpuReader").equals("DEFERRED")) {
                assertTrue(System.nanoTime() < deadline, "never deferred: " + e.diagnostics().report(10));
                Thread.onSpinWait();
            }
            writerMayFinish.countDown();
            e.waitForAll();
            assertEquals(42, seen.get(), "the CPU reader ran before the device work was done");
            assertEquals(1L, e.diagnostics().counters().get("hostDeferrals"));
        }
    }

    private static final Context FAKE0 = Context.of(AsyncStandInDevices.TYPE, 0);

    private static AsyncStandInDevices.StandInStream fake(RunContext ctx) {
        return (AsyncStandInDevices.StandInStream) ctx.stream();
    }

    private static String stateOf(Engine e, String op) {
        return e.diagnostics().ops().stream().filter(o -> o.name().equals(op)).map(o -> o.state().name())
                .findFirst().orElse("none");
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the device work");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void asyncOpsReadyAtPushRunInlineOnThePusher() {
        try (Engine e = engine(Map.of())) {
            AtomicReference<Thread> ran = new AtomicReference<>();
            VarHandle v = e.newVariable();
            e.pushAsync((ctx, done) -> {
                ran.set(Thread.currentThread());
                done.complete();
            }, Context.cpu(), List.of(), List.of(v), FnProperty.ASYNC, 0, "inline");
            assertSame(Thread.currentThread(), ran.get(), "ran before push returned, on the pusher");
            AtomicReference<Thread> deleted = new AtomicReference<>();
            e.deleteVariable(ctx -> deleted.set(Thread.currentThread()), Context.cpu(), v);
            assertSame(Thread.currentThread(), deleted.get());
        }
    }

    @Test
    void invalidSettingsNameTheProperty() {
        for (String key : List.of("depengine.cpu.workers", "depengine.cpu.priorityWorkers", "depengine.device.workers",
                "depengine.device.copyWorkers", "depengine.device.priorityWorkers")) {
            for (String bad : List.of("zero", "0", "-3")) {
                IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> engine(Map.of(key, bad)));
                assertTrue(ex.getMessage().contains(key), ex.getMessage());
            }
        }
    }

    @Test
    void engineGetIsThePerDeviceEngineByDefaultAndFollowsTheProperty() {
        String before = System.getProperty(Engine.ENGINE_PROPERTY);
        try {
            System.clearProperty(Engine.ENGINE_PROPERTY);
            Engine g = Engine.get();
            assertEquals("perdevice", g.name());
            assertSame(g, Engine.get());
            g.close();
            System.setProperty(Engine.ENGINE_PROPERTY, "perdevice");
            Engine again = Engine.get();
            assertTrue(again != g && !again.isClosed(), "a closed global engine is replaced");
            again.close();
            System.setProperty(Engine.ENGINE_PROPERTY, "nonesuch");
            IllegalStateException ex = assertThrows(IllegalStateException.class, Engine::get);
            assertTrue(ex.getMessage().contains("nonesuch") && ex.getMessage().contains("perdevice"), ex.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty(Engine.ENGINE_PROPERTY);
            } else {
                System.setProperty(Engine.ENGINE_PROPERTY, before);
            }
        }
    }
}
