package org.depengine.profiler;

import static org.depengine.testkit.Json.arr;
import static org.depengine.testkit.Json.obj;
import static org.depengine.profiler.TraceView.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.StreamKind;
import org.depengine.api.listen.OpInfo;
import org.depengine.profiler.Fakes.FakeOp;
import org.depengine.testkit.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives a Profiler with a synthetic event sequence of a known DAG and checks the trace. */
class ProfilerTraceTest {
    @TempDir
    Path dir;

    /**
     * The DAG: W writes a; R1 and R2 read a concurrently (on two workers) and write x and y; D, a device
     * op on fake:0's compute stream, reads x and y and writes b. Times are nanoseconds.
     */
    static Profiler knownDag(Profiler p) {
        Fakes.ListenerSink sink = new Fakes.ListenerSink("fake");
        p.start(sink.engine);
        VarHandle a = Fakes.var("a");
        VarHandle x = Fakes.var("x");
        VarHandle y = Fakes.var("y");
        VarHandle b = Fakes.var("b");
        FakeOp w = new FakeOp(1, "W").writes(a);
        FakeOp r1 = new FakeOp(2, "R1").reads(a).writes(x);
        FakeOp r2 = new FakeOp(3, "R2").reads(a).writes(y);
        FakeOp dev = new FakeOp(4, "D").reads(x, y).writes(b);
        dev.context = Context.of("fake", 0);
        dev.property = FnProperty.DEVICE_PRIORITIZED;
        dev.priority = 7;
        dev.stream = Fakes.device(dev.context).createStream(StreamKind.COMPUTE);
        try (Workers t = new Workers()) {
            t.on("worker-1", () -> {
                Fakes.run(p.listener(), w, 1_000, 1_100, -1, 2_000);
                p.listener().released(w, r1);
                p.listener().released(w, r2);
                p.listener().ready(r1, 2_000);
            });
            t.on("worker-2", () -> p.listener().ready(r2, 2_000));
            t.on("worker-2", () -> {
                p.listener().started(r2, 2_200);
                r2.outcome = OpInfo.Outcome.DONE;
                p.listener().finished(r2, 3_900);
                p.listener().released(r2, dev);
            });
            t.on("worker-1", () -> {
                p.listener().started(r1, 2_100);
                r1.outcome = OpInfo.Outcome.DONE;
                p.listener().finished(r1, 4_000);
                p.listener().released(r1, dev);
                p.listener().ready(dev, 4_000);
                p.listener().started(dev, 4_100);
                p.listener().launched(dev, 4_500);
            });
            t.on("device-callback", () -> {
                dev.outcome = OpInfo.Outcome.DONE;
                p.listener().finished(dev, 9_000);
            });
        }
        p.stop();
        return p;
    }

    @Test
    void unnamedOpsAreShownByIdWithoutInterningANamePerOp() throws Exception {
        Profiler p = Profiler.builder().build();
        Fakes.ListenerSink sink = new Fakes.ListenerSink("fake");
        p.start(sink.engine);
        VarHandle a = Fakes.var("a");
        FakeOp named = new FakeOp(10, "N").writes(a);
        Fakes.run(p.listener(), named, 1_000, 1_100, -1, 1_200);
        for (long id = 11; id <= 13; id++) {
            FakeOp unnamed = new FakeOp(id, "op#" + id).writes(a);
            unnamed.named = false;
            Fakes.run(p.listener(), unnamed, id * 1_000, id * 1_000 + 100, -1, id * 1_000 + 200);
        }
        p.stop();
        Path file = dir.resolve("unnamed.json");
        p.dump(file);
        List<String> names = new ArrayList<>();
        TraceView.read(file).hostOps().forEach(e -> names.add((String) e.get("name")));
        names.sort(null);
        assertEquals(List.of("N", "op#11", "op#12", "op#13"), names);
        assertEquals(1, ((Recorder) p.listener()).opNamesInterned(),
                "only the given name is interned; an unnamed op's name is built from its id when shown");
    }

    @Test
    void knownDagHasExactlyTheExpectedOpsFlowsAndLanes() throws Exception {
        Profiler p = knownDag(Profiler.builder().build());
        Path file = dir.resolve("trace.json");
        p.dump(file);
        TraceView t = TraceView.read(file);

        assertEquals("ms", t.root.get("displayTimeUnit"));
        List<String> names = new ArrayList<>();
        t.hostOps().forEach(e -> names.add((String) e.get("name")));
        names.sort(null);
        assertEquals(List.of("D", "R1", "R2", "W"), names);
        assertEquals(1, t.deviceParts().size());
        assertEquals("D", t.deviceParts().get(0).get("name"));

        assertEquals(Set.of("W->R1", "W->R2", "R1->D", "R2->D"), t.flows());

        assertEquals(Set.of("cpu:0", "fake:0"), new HashSet<>(t.processNames.values()));
        assertEquals("cpu:0/worker-1", t.laneOf(t.hostOp("W")));
        assertEquals("cpu:0/worker-1", t.laneOf(t.hostOp("R1")));
        assertEquals("cpu:0/worker-2", t.laneOf(t.hostOp("R2")));
        assertEquals("fake:0/worker-1", t.laneOf(t.hostOp("D")));
        assertEquals("fake:0/stream COMPUTE#0", t.laneOf(t.deviceParts().get(0)));
        assertEquals(4, t.threadNames.size(), "lanes: " + t.threadNames);

        // the two readers overlap in time
        Map<String, Object> r1 = t.hostOp("R1");
        Map<String, Object> r2 = t.hostOp("R2");
        assertTrue(d(r1, "ts") < d(r2, "ts") + d(r2, "dur") && d(r2, "ts") < d(r1, "ts") + d(r1, "dur"));

        // times: µs from the earliest record (W ready at 1000 ns)
        Map<String, Object> w = t.hostOp("W");
        assertEquals(0.1, d(w, "ts"), 1e-9);
        assertEquals(0.9, d(w, "dur"), 1e-9);
        Map<String, Object> dHost = t.hostOp("D");
        assertEquals(3.1, d(dHost, "ts"), 1e-9);
        assertEquals(0.4, d(dHost, "dur"), 1e-9);
        Map<String, Object> dDev = t.deviceParts().get(0);
        assertEquals(3.5, d(dDev, "ts"), 1e-9);
        assertEquals(4.5, d(dDev, "dur"), 1e-9);

        Map<String, Object> args = obj(dHost.get("args"));
        assertEquals("D", args.get("op"));
        assertEquals("DEVICE_PRIORITIZED", args.get("property"));
        assertEquals(7.0, args.get("priority"));
        assertEquals(List.of("x", "y"), arr(args.get("reads")));
        assertEquals(List.of("b"), arr(args.get("writes")));
        assertEquals(0.1, (Double) args.get("queue_wait_us"), 1e-9);
        assertEquals(0.4, (Double) args.get("host_us"), 1e-9);
        assertEquals(4.5, (Double) args.get("device_us"), 1e-9);
        assertEquals("DONE", args.get("outcome"));
        assertEquals(0.2, (Double) obj(r2.get("args")).get("queue_wait_us"), 1e-9);

        assertEquals(0.0, t.otherData().get("droppedRecords"));
        assertEquals(0.0, t.otherData().get("incompleteOps"));
        assertEquals(0L, p.droppedRecords());
    }

    @Test
    void aggregateStatisticsAgreeWithTheTrace() throws Exception {
        Profiler p = knownDag(Profiler.builder().build());
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        AggregateStats stats = p.stats();
        assertEquals(4, stats.opCount());
        Map<String, Double> runFromTrace = new HashMap<>();
        for (Map<String, Object> e : t.ph("X")) {
            runFromTrace.merge((String) e.get("name"), d(e, "dur"), Double::sum);
        }
        for (AggregateStats.Row r : stats.rows()) {
            assertEquals(1, r.count());
            // host part + device part in the trace = run time in the statistics (a device op's parts may
            // leave a gap only when its stream was busy; here it was not)
            assertEquals(runFromTrace.get(r.name()), r.run().totalNanos() / 1000.0, 1e-9, r.name());
            Map<String, Object> args = obj(t.hostOp(r.name()).get("args"));
            assertEquals((Double) args.get("queue_wait_us"), r.queueWait().totalNanos() / 1000.0, 1e-9, r.name());
        }
        AggregateStats.Row dev = stats.row("D").orElseThrow();
        assertEquals(400, dev.host().totalNanos());
        assertEquals(4_500, dev.device().totalNanos());
        assertEquals(1, dev.device().count());
        assertEquals(0, stats.row("W").orElseThrow().device().count());

        // sortable by any column; JSON parses and carries the same numbers
        for (AggregateStats.Column c : AggregateStats.Column.values()) {
            List<AggregateStats.Row> asc = stats.rows(c, false);
            for (int i = 1; i < asc.size(); i++) {
                assertTrue(c.comparator().compare(asc.get(i - 1), asc.get(i)) <= 0, c.name());
            }
            Map<String, Object> json = obj(Json.parse(stats.toJson(c, true)));
            assertEquals(c.name(), json.get("sortedBy"));
            assertEquals(4, arr(json.get("rows")).size());
            assertTrue(stats.toTable(c, true).contains(c.header()));
        }
        List<AggregateStats.Row> byTotal = stats.rows(AggregateStats.Column.TOTAL, true);
        assertEquals(List.of("D", "R1", "R2", "W"), byTotal.stream().map(AggregateStats.Row::name).toList());
        Map<String, Object> first = obj(arr(obj(Json.parse(stats.toJson(AggregateStats.Column.TOTAL, true))).get("rows")).get(0));
        assertEquals("D", first.get("name"));
        assertEquals(4_900.0, obj(first.get("run")).get("totalNs"));
        assertEquals(4.9e-3, (Double) obj(first.get("run")).get("avgMs"), 1e-12);
        String table = stats.toTable(AggregateStats.Column.NAME, false);
        assertTrue(table.indexOf("\nD ") < table.indexOf("\nW "), table);
    }

    @Test
    void argumentsOfEveryTypeAreInTheEventArgsAndAtMostSevenAreKept() throws Exception {
        Profiler p = Profiler.builder().jfr(false).build();
        p.start(new Fakes.ListenerSink("e").engine);
        FakeOp typed = new FakeOp(1, "step");
        Map<String, Object> args = new java.util.LinkedHashMap<>();
        args.put("epoch", 3L);
        args.put("lr", 0.25);
        args.put("warm", true);
        args.put("phase", "eval");
        args.put("id", 42L); // the profiler's own key: written as arg_id
        typed.args = args;
        FakeOp many = new FakeOp(2, "step");
        Map<String, Object> nine = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 9; i++) {
            nine.put("k" + i, (long) i);
        }
        many.args = nine;
        Fakes.run(p.listener(), typed, 0, 10, -1, 20);
        Fakes.run(p.listener(), many, 20, 30, -1, 40);
        p.stop();
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        Map<String, Object> a1 = obj(t.hostOps().get(0).get("args"));
        assertEquals(3.0, a1.get("epoch"));
        assertEquals(0.25, a1.get("lr"));
        assertEquals(Boolean.TRUE, a1.get("warm"));
        assertEquals("eval", a1.get("phase"));
        assertEquals(42.0, a1.get("arg_id"));
        assertEquals(1.0, a1.get("id"), "the op id stays the profiler's");
        Map<String, Object> a2 = obj(t.hostOps().get(1).get("args"));
        assertTrue(a2.containsKey("k6") && !a2.containsKey("k7"), "the first seven are kept: " + a2);
        assertEquals(2, p.stats().row("step").orElseThrow().count());
        assertEquals(0, p.droppedRecords());
    }

    @Test
    void flaggedModeRecordsOnlyFlaggedOps() throws Exception {
        Profiler p = Profiler.builder().mode(Profiler.Mode.FLAGGED).build();
        p.start(new Fakes.ListenerSink("e").engine);
        FakeOp a = new FakeOp(1, "flagged");
        FakeOp b = new FakeOp(2, "unflagged");
        b.profiling = false;
        FakeOp c = new FakeOp(3, "flagged2");
        Fakes.run(p.listener(), a, 10, 20, -1, 30);
        Fakes.run(p.listener(), b, 30, 40, -1, 50);
        p.listener().released(a, b);
        p.listener().released(a, c);
        Fakes.run(p.listener(), c, 50, 60, -1, 70);
        p.stop();
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        assertEquals(Set.of("flagged", "flagged2"), Set.copyOf(t.hostOps().stream().map(e -> (String) e.get("name")).toList()));
        assertEquals(Set.of("flagged->flagged2"), t.flows());
    }

    @Test
    void pauseAndResumeDropWhatHappensWhilePaused() throws Exception {
        Profiler p = Profiler.builder().build();
        Fakes.ListenerSink sink = new Fakes.ListenerSink("e");
        p.start(sink.engine);
        assertEquals(List.of(p.listener()), sink.listeners);
        FakeOp before = new FakeOp(1, "before");
        FakeOp paused = new FakeOp(2, "paused");
        FakeOp spanning = new FakeOp(3, "spanning");
        FakeOp after = new FakeOp(4, "after");
        Fakes.run(p.listener(), before, 0, 10, -1, 20);
        p.listener().ready(spanning, 20);
        p.listener().started(spanning, 25);
        p.pause();
        assertEquals(Profiler.State.PAUSED, p.state());
        assertFalse(p.isRecording());
        Fakes.run(p.listener(), paused, 30, 40, -1, 50);
        p.listener().released(before, paused);
        p.resume();
        assertTrue(p.isRecording());
        spanning.outcome = OpInfo.Outcome.DONE;
        p.listener().finished(spanning, 60); // its finish is recorded, its start is: still complete
        p.pause();
        FakeOp startedPaused = new FakeOp(5, "startedPaused");
        p.listener().ready(startedPaused, 61);
        p.listener().started(startedPaused, 62);
        p.resume();
        startedPaused.outcome = OpInfo.Outcome.DONE;
        p.listener().finished(startedPaused, 63); // its start was not recorded: left out, counted incomplete
        Fakes.run(p.listener(), after, 70, 80, -1, 90);
        p.listener().released(spanning, after);
        p.stop();
        assertEquals(Profiler.State.STOPPED, p.state());
        assertTrue(sink.listeners.isEmpty(), "stop removes the listener");
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        assertEquals(Set.of("before", "spanning", "after"), Set.copyOf(t.hostOps().stream().map(e -> (String) e.get("name")).toList()));
        assertEquals(Set.of("spanning->after"), t.flows());
        assertEquals(1.0, t.otherData().get("incompleteOps"));
        assertEquals(1, p.stats().incompleteOps());
        // events after stop are not recorded
        Fakes.run(p.listener(), new FakeOp(9, "afterStop"), 100, 110, -1, 120);
        assertEquals(3, p.stats().opCount());
    }

    @Test
    void lifecycleRules() {
        Profiler p = Profiler.builder().build();
        assertEquals(Profiler.State.NEW, p.state());
        p.pause(); // no effect when not running
        assertEquals(Profiler.State.NEW, p.state());
        Fakes.ListenerSink e1 = new Fakes.ListenerSink("one");
        p.start(e1.engine);
        assertThrows(IllegalStateException.class, () -> p.start(e1.engine));
        Fakes.run(p.listener(), new FakeOp(1, "x"), 0, 1, -1, 2);
        p.stop();
        p.stop(); // idempotent
        p.start(e1.engine); // same engine: keeps what it had
        assertEquals(1, p.stats().opCount());
        p.stop();
        p.start(new Fakes.ListenerSink("two").engine); // another engine: ids would clash, so it clears
        assertEquals(0, p.stats().opCount());
        p.stop();
        assertThrows(IllegalArgumentException.class, () -> Profiler.builder().ringCapacity(3));
        assertThrows(IllegalArgumentException.class, () -> Profiler.builder().maxThreads(0));
    }

    @Test
    void deviceOpsOnOneStreamDoNotOverlapOnItsLane() throws Exception {
        Profiler p = Profiler.builder().build();
        p.start(new Fakes.ListenerSink("e").engine);
        FakeOp k1 = new FakeOp(1, "k1");
        FakeOp k2 = new FakeOp(2, "k2");
        k1.stream = k2.stream = Fakes.device(Context.of("gpu", 0)).createStream(StreamKind.COMPUTE);
        k1.context = k2.context = Context.of("gpu", 0);
        // k2 is launched while k1's device work still runs: in-order, it can start only at 500
        p.listener().started(k1, 0);
        p.listener().launched(k1, 100);
        p.listener().started(k2, 110);
        p.listener().launched(k2, 200);
        k1.outcome = k2.outcome = OpInfo.Outcome.DONE;
        p.listener().finished(k1, 500);
        p.listener().finished(k2, 800);
        p.stop();
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        List<Map<String, Object>> dev = t.deviceParts();
        assertEquals(2, dev.size());
        dev.sort((u, v) -> Double.compare(d(u, "ts"), d(v, "ts")));
        assertEquals(0.1, d(dev.get(0), "ts"), 1e-9);
        assertEquals(0.4, d(dev.get(0), "dur"), 1e-9);
        assertEquals(0.5, d(dev.get(1), "ts"), 1e-9);
        assertEquals(0.3, d(dev.get(1), "dur"), 1e-9);
        AggregateStats.Row k2row = p.stats().row("k2").orElseThrow();
        assertEquals(90, k2row.host().totalNanos());
        assertEquals(300, k2row.device().totalNanos());
        assertEquals(690, k2row.run().totalNanos());
    }

    @Test
    void namesAreEscapedAndManyVariablesAreSummarised() throws Exception {
        Profiler p = Profiler.builder().build();
        p.start(new Fakes.ListenerSink("e").engine);
        VarHandle[] many = new VarHandle[70];
        for (int i = 0; i < many.length; i++) {
            many[i] = Fakes.var("v\"" + i + "\n");
        }
        FakeOp op = new FakeOp(1, "we\"ird</script>\\\u0001\u2028\ud800name").reads(many);
        Fakes.run(p.listener(), op, 0, 1, -1, 2);
        p.stop();
        StringWriter sw = new StringWriter();
        p.writeTrace(sw);
        TraceView t = new TraceView(sw.toString());
        Map<String, Object> e = t.hostOps().get(0);
        assertEquals("we\"ird</script>\\\u0001\u2028\ud800name", e.get("name"));
        List<Object> reads = arr(obj(e.get("args")).get("reads"));
        assertEquals(65, reads.size());
        assertEquals("v\"0\n", reads.get(0));
        assertEquals("... 6 more", reads.get(64));
    }
}
