package org.depengine.profiler;

import static org.depengine.profiler.TraceView.d;
import static org.depengine.profiler.TraceView.num;
import static org.depengine.testkit.Json.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.depengine.api.listen.OpInfo;
import org.depengine.profiler.Fakes.FakeOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The members of a bulk's merged op ({@code OpListener.memberFinished}) in the trace: complete events
 * nested inside the merged op's slice on its lane, with their index and outcome; rows of their own in
 * the statistics; sub-bars in the HTML page's data.
 */
class BulkMembersTraceTest {
    static final String BULK = "bulk[3]: load..store";

    @TempDir
    Path dir;

    /**
     * A merged op (id 1) on worker-1 from 1,100 to 2,000 ns: load DONE 1,150-1,400, compute FAILED
     * 1,400-1,900, store SKIPPED at 1,950; then a plain op (id 2) on the same lane.
     */
    static Profiler bulkTrace(Profiler p) {
        Fakes.ListenerSink sink = new Fakes.ListenerSink("fake");
        p.start(sink.engine);
        FakeOp bulk = new FakeOp(1, BULK).writes(Fakes.var("v"));
        FakeOp plain = new FakeOp(2, "plain").reads(Fakes.var("v"));
        Fakes.onThread("worker-1", () -> {
            p.listener().ready(bulk, 1_000);
            p.listener().started(bulk, 1_100);
            p.listener().memberFinished(bulk, 0, "load", OpInfo.Outcome.DONE, 1_150, 1_400);
            p.listener().memberFinished(bulk, 1, "compute", OpInfo.Outcome.FAILED, 1_400, 1_900);
            p.listener().memberFinished(bulk, 2, "store", OpInfo.Outcome.SKIPPED, 1_950, 1_950);
            bulk.outcome = OpInfo.Outcome.DONE;
            p.listener().finished(bulk, 2_000);
            Fakes.run(p.listener(), plain, 2_000, 2_100, -1, 2_500);
        });
        p.stop();
        return p;
    }

    @Test
    void membersAreSlicesNestedInsideTheBulksSliceOnItsLane() throws Exception {
        Profiler p = bulkTrace(Profiler.builder().build());
        Path file = dir.resolve("bulk.json");
        p.dump(file);
        TraceView t = TraceView.read(file);
        Map<String, Object> bulk = t.hostOp(BULK);
        List<Map<String, Object>> members = t.members();
        assertEquals(List.of("load", "compute", "store"), members.stream().map(e -> e.get("name")).toList());
        List<String> outcomes = List.of("DONE", "FAILED", "SKIPPED");
        double[] durations = {0.25, 0.5, 0};
        for (int i = 0; i < members.size(); i++) {
            Map<String, Object> m = members.get(i);
            assertEquals(num(bulk, "pid"), num(m, "pid"), "same process");
            assertEquals(num(bulk, "tid"), num(m, "tid"), "same lane as the merged op: viewers nest by time");
            assertTrue(d(m, "ts") >= d(bulk, "ts") && d(m, "ts") + d(m, "dur") <= d(bulk, "ts") + d(bulk, "dur"),
                    "inside the merged op's slice: " + m + " in " + bulk);
            assertEquals(durations[i], d(m, "dur"), 1e-9);
            Map<String, Object> args = obj(m.get("args"));
            assertEquals(i, ((Double) args.get("index")).intValue());
            assertEquals(outcomes.get(i), args.get("outcome"));
            assertEquals(BULK, args.get("bulk"));
            assertEquals(1, ((Double) args.get("bulk_id")).intValue());
        }
        assertEquals(0.05, d(members.get(0), "ts") - d(bulk, "ts"), 1e-9, "load starts 50 ns into the merged op");
        assertEquals(List.of(BULK, "plain"), t.hostOps().stream().map(e -> e.get("name")).toList(),
                "the members are not ops of their own");
        assertEquals(2.0, (Double) t.otherData().get("ops"), "otherData counts the merged op once");
    }

    @Test
    void statisticsCountMembersUnderTheirOwnNames() {
        Profiler p = bulkTrace(Profiler.builder().build());
        AggregateStats s = p.stats();
        assertEquals(2, s.opCount(), "the merged op is one op");
        assertEquals(1, s.row(BULK).orElseThrow().count(), "the merged op keeps its own row");
        AggregateStats.Row load = s.row("load").orElseThrow();
        assertEquals(1, load.count());
        assertEquals(250, load.run().totalNanos());
        assertEquals(0, load.queueWait().count(), "a member has no queue wait of its own");
        assertEquals(500, s.row("compute").orElseThrow().runP50Nanos());
        assertEquals(0, s.row("store").orElseThrow().run().totalNanos(), "a skipped member ran for 0 ns");
    }

    @Test
    void membersOfAMergedOpThatIsNotRecordedAreLeftOut() {
        Profiler p = Profiler.builder().mode(Profiler.Mode.FLAGGED).build();
        p.start(new Fakes.ListenerSink("fake").engine);
        FakeOp bulk = new FakeOp(1, BULK);
        bulk.profiling = false;
        Fakes.onThread("worker-1", () -> {
            p.listener().started(bulk, 1_100);
            p.listener().memberFinished(bulk, 0, "load", OpInfo.Outcome.DONE, 1_150, 1_400);
            bulk.outcome = OpInfo.Outcome.DONE;
            p.listener().finished(bulk, 2_000);
        });
        p.stop();
        assertTrue(p.stats().row("load").isEmpty(), "not flagged for profiling: its members are not recorded either");
    }

    @Test
    void theHtmlPageCarriesTheMembersOfTheBulksBar() throws Exception {
        Profiler p = bulkTrace(Profiler.builder().build());
        Path html = dir.resolve("bulk.html");
        p.writeHtml(html);
        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertTrue(page.contains("\"members\":[{\"i\":0,\"name\":\"load\",\"ts\":0.150,\"dur\":0.250,\"outcome\":\"DONE\"}"), page);
        assertTrue(page.contains("{\"i\":2,\"name\":\"store\",\"ts\":0.950,\"dur\":0.000,\"outcome\":\"SKIPPED\"}]"));
    }
}
