package org.depengine.profiler;

import static org.depengine.testkit.Json.arr;
import static org.depengine.testkit.Json.obj;
import static org.depengine.profiler.TraceView.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** Profiles a real DAG pushed through real engines (ops on cpu:0). */
class EngineIntegrationTest {
    @TempDir
    Path dir;

    @Test
    void pooledEngineDagIsTracedWithItsFlowsAndConcurrentReaders() throws Exception {
        try (Engine e = Engine.create("pooled")) {
            Profiler p = Profiler.builder().build().start(e);
            VarHandle a = e.newVariable("a");
            VarHandle x = e.newVariable("x");
            VarHandle y = e.newVariable("y");
            VarHandle b = e.newVariable("b");
            CountDownLatch bothReading = new CountDownLatch(2);
            AtomicBoolean overlapped = new AtomicBoolean(true);
            Context cpu = Context.cpu();
            CountDownLatch allPushed = new CountDownLatch(1);
            // W holds a until every op is pushed, so R1 and R2 really wait for it (a dependency arrow each)
            e.pushSync(c -> {
                allPushed.await(10, TimeUnit.SECONDS);
                spin(200_000);
            }, cpu, List.of(), List.of(a), FnProperty.NORMAL, 0, "W");
            for (String r : List.of("R1", "R2")) {
                VarHandle out = r.equals("R1") ? x : y;
                e.pushSync(c -> {
                    // both readers of a run at once: each waits here for the other
                    bothReading.countDown();
                    if (!bothReading.await(10, TimeUnit.SECONDS)) {
                        overlapped.set(false);
                    }
                    spin(100_000);
                }, cpu, List.of(a), List.of(out), FnProperty.NORMAL, 0, r);
            }
            e.pushSync(c -> spin(100_000), cpu, List.of(x, y), List.of(b), FnProperty.NORMAL, 0, "D");
            allPushed.countDown();
            e.waitForAll();
            p.stop();
            assertTrue(overlapped.get(), "the engine ran the two readers concurrently");

            Path file = dir.resolve("pooled.json");
            p.dump(file);
            TraceView t = TraceView.read(file);
            List<String> names = new ArrayList<>();
            t.hostOps().forEach(ev -> names.add((String) ev.get("name")));
            assertTrue(names.containsAll(List.of("W", "R1", "R2", "D")), "ops: " + names);
            assertEquals(1, names.stream().filter("R1"::equals).count());
            assertTrue(t.flows().containsAll(List.of("W->R1", "W->R2", "R1->D", "R2->D")), "flows: " + t.flows());

            Map<String, Object> r1 = t.hostOp("R1");
            Map<String, Object> r2 = t.hostOp("R2");
            assertTrue(d(r1, "ts") < d(r2, "ts") + d(r2, "dur") && d(r2, "ts") < d(r1, "ts") + d(r1, "dur"),
                    "readers overlap in the trace");
            assertNotEquals(t.laneOf(r1), t.laneOf(r2), "readers on two worker lanes");
            assertTrue(t.laneOf(r1).startsWith("cpu:0/"));
            assertEquals(List.of("a"), arr(obj(r1.get("args")).get("reads")));
            assertEquals(List.of("x"), arr(obj(r1.get("args")).get("writes")));
            assertTrue((Double) obj(t.hostOp("D").get("args")).get("queue_wait_us") >= 0);
            assertTrue(d(t.hostOp("W"), "dur") >= 200.0, "W spun 200 µs");

            AggregateStats s = p.stats();
            assertEquals(t.hostOps().size(), s.opCount());
            assertEquals(1, s.row("D").orElseThrow().count());
            assertEquals(d(t.hostOp("D"), "dur"), s.row("D").orElseThrow().run().totalNanos() / 1000.0, 0.0011);
            assertEquals(0, p.droppedRecords());
            p.writeHtml(dir.resolve("pooled.html"));
        }
    }

    @Test
    void naiveEngineRunsEverythingOnThePushingThread() throws Exception {
        try (Engine e = Engine.create("naive")) {
            Profiler p = Profiler.builder().mode(Profiler.Mode.FLAGGED).build().start(e);
            VarHandle v = e.newVariable("v");
            for (int i = 0; i < 10; i++) {
                e.pushSync(c -> spin(10_000), Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "step");
            }
            e.waitForAll();
            p.stop();
            AggregateStats s = p.stats();
            assertEquals(10, s.row("step").orElseThrow().count());
            java.io.StringWriter sw = new java.io.StringWriter();
            p.writeTrace(sw);
            TraceView t = new TraceView(sw.toString());
            String lane = t.laneOf(t.hostOps().get(0));
            assertTrue(t.hostOps().stream().allMatch(ev -> t.laneOf(ev).equals(lane)), "one lane: the pusher");
            assertEquals("cpu:0/" + Thread.currentThread().getName(), lane);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"naive", "pooled"})
    void eachReplayedOpIsRecordedUnderItsOwnNameWithItsReplayNumber(String engine) throws Exception {
        try (Engine e = Engine.create(engine)) {
            Profiler p = Profiler.builder().jfr(false).build().start(e);
            VarHandle data = e.newVariable("data");
            org.depengine.api.Graph step;
            try (org.depengine.api.Capture c = e.capture()) {
                e.op("forward").arg("layer", 1).writes(data).run(ctx -> spin(1_000));
                e.op("backward").reads(data).run(ctx -> spin(1_000));
                step = c.graph();
            }
            for (int i = 0; i < 3; i++) {
                step.replay();
            }
            e.waitForAll();
            p.stop();
            java.io.StringWriter sw = new java.io.StringWriter();
            p.writeTrace(sw);
            List<String> seen = new ArrayList<>();
            for (Map<String, Object> ev : new TraceView(sw.toString()).hostOps()) {
                Map<String, Object> args = obj(ev.get("args"));
                seen.add(ev.get("name") + " " + ((Double) args.get("replay")).longValue()
                        + (args.containsKey("layer") ? " layer" : ""));
            }
            seen.sort(null);
            assertEquals(List.of("backward 1", "backward 2", "backward 3", "forward 1 layer", "forward 2 layer",
                    "forward 3 layer"), seen);
            assertEquals(3, p.stats().row("forward").orElseThrow().count(), "statistics group replayed ops by name");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"naive", "pooled"})
    void opArgumentsReachTheTraceAndClosingTheEngineWritesTheFinalFiles(String engine) throws Exception {
        Path file = dir.resolve(engine + "-closed.json");
        Path html = dir.resolve(engine + "-closed.html");
        Profiler p;
        try (Engine e = Engine.create(engine)) {
            p = Profiler.builder().file(file).htmlFile(html).jfr(false).build().start(e);
            VarHandle data = e.newVariable("data");
            for (int epoch = 1; epoch <= 2; epoch++) {
                e.op("shuffle").arg("epoch", epoch).arg("phase", "train").writes(data).run(c -> spin(1_000));
            }
            e.op("plain").reads(data).run(c -> spin(1_000));
            IllegalArgumentException bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> e.pushSync(c -> { }, Context.cpu(), List.of(), List.of(data), FnProperty.NORMAL, 0, "bad",
                            Map.of("when", new Object())));
            assertTrue(bad.getMessage().contains("'when'") && bad.getMessage().contains("'bad'"), bad.getMessage());
            // no stop(): the engine's close is what stops the profiler and writes both files
        }
        assertEquals(Profiler.State.STOPPED, p.state(), "closing its engine stopped the profiler");
        TraceView t = TraceView.read(file);
        List<Double> epochs = new ArrayList<>();
        for (Map<String, Object> ev : t.hostOps()) {
            Map<String, Object> args = obj(ev.get("args"));
            if ("shuffle".equals(ev.get("name"))) {
                epochs.add((Double) args.get("epoch"));
                assertEquals("train", args.get("phase"));
            } else {
                assertTrue(!args.containsKey("epoch"), "an op without arguments has none: " + args);
            }
        }
        assertEquals(List.of(1.0, 2.0), epochs, "one host event per epoch, each with its own argument");
        AggregateStats s = p.stats();
        assertEquals(2, s.row("shuffle").orElseThrow().count(), "statistics group by name, not by arguments");
        assertEquals(2, s.rows().size());
        String page = java.nio.file.Files.readString(html);
        assertTrue(page.contains("\"args\":{\"epoch\":1,\"phase\":\"train\"}"), "the timeline carries the arguments");
    }

    @ParameterizedTest
    @ValueSource(strings = {"naive", "pooled"})
    void aBulksMembersAreNestedInsideItsSliceWithTheirOutcomes(String engine) throws Exception {
        Profiler p;
        try (Engine e = Engine.create(engine)) {
            p = Profiler.builder().jfr(false).build().start(e);
            VarHandle a = e.newVariable("a");
            VarHandle b = e.newVariable("b");
            org.depengine.api.Bulk bulk = e.bulk(8);
            try {
                e.op("load").writes(a).run(c -> spin(20_000));
                e.op("compute").reads(a).writes(b).run(c -> {
                    throw new IllegalStateException("compute failed");
                });
                e.op("store").writes(a).run(c -> spin(20_000));
            } finally {
                bulk.close(); // the three members are pushed as one merged op here
            }
            org.junit.jupiter.api.Assertions.assertThrows(org.depengine.api.EngineException.class, e::waitForAll);
            p.stop();
        }
        java.io.StringWriter sw = new java.io.StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        Map<String, Object> merged = t.hostOp("bulk[3]: load..store");
        List<Map<String, Object>> members = t.members();
        assertEquals(List.of("load", "compute", "store"), members.stream().map(ev -> ev.get("name")).toList());
        assertEquals(List.of("DONE", "FAILED", "SKIPPED"),
                members.stream().map(ev -> obj(ev.get("args")).get("outcome")).toList());
        for (Map<String, Object> m : members) {
            assertEquals(t.laneOf(merged), t.laneOf(m), "on the merged op's lane");
            assertTrue(d(m, "ts") >= d(merged, "ts") && d(m, "ts") + d(m, "dur") <= d(merged, "ts") + d(merged, "dur"),
                    "nested inside the merged op: " + m + " in " + merged);
        }
        assertTrue(d(members.get(0), "dur") >= 20.0, "load spun 20 µs");
        assertEquals(1, t.hostOps().size(), "one op: the merged one");
        assertEquals(1, p.stats().row("store").orElseThrow().count());
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
