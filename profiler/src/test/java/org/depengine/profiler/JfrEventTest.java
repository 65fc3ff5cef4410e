package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.depengine.api.Context;
import org.depengine.api.device.StreamKind;
import org.depengine.api.listen.OpInfo;
import org.depengine.profiler.Fakes.FakeOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JFR events are committed per finished op while JFR records them, and read back from the file. */
class JfrEventTest {
    @TempDir
    Path dir;

    @Test
    void opEventsAreReadBackFromARecording() throws Exception {
        Profiler p = Profiler.builder().build();
        p.start(new Fakes.ListenerSink("e").engine);
        // not recorded by JFR: no recording is running yet
        Fakes.run(p.listener(), new FakeOp(100, "beforeRecording"), 0, 1, -1, 2);
        Path file = dir.resolve("ops.jfr");
        try (Recording r = new Recording()) {
            r.enable(OpEvent.NAME);
            r.start();
            FakeOp host = new FakeOp(1, "hostOp");
            Fakes.run(p.listener(), host, 1_000, 1_250, -1, 2_250);
            FakeOp dev = new FakeOp(2, "kernel");
            dev.context = Context.of("gpu", 1);
            dev.stream = Fakes.device(dev.context).createStream(StreamKind.COMPUTE);
            try (Workers w = new Workers()) {
                // the finish comes from another thread than the start, as with device callbacks
                w.on("worker", () -> {
                    p.listener().ready(dev, 3_000);
                    p.listener().started(dev, 3_100);
                    p.listener().launched(dev, 3_300);
                });
                w.on("callback", () -> {
                    dev.outcome = OpInfo.Outcome.DONE;
                    p.listener().finished(dev, 4_300);
                });
            }
            r.stop();
            r.dump(file);
        }
        p.stop();
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Map<String, RecordedEvent> ops = new HashMap<>();
        for (RecordedEvent e : events) {
            if (e.getEventType().getName().equals(OpEvent.NAME)) {
                ops.put(e.getString("opName"), e);
            }
        }
        assertEquals(2, ops.size(), "events: " + ops.keySet());
        RecordedEvent h = ops.get("hostOp");
        assertEquals(1L, h.getLong("opId"));
        assertEquals("cpu:0", h.getString("device"));
        assertEquals("NORMAL", h.getString("property"));
        assertEquals("DONE", h.getString("outcome"));
        assertEquals(250L, h.getLong("queueWait"));
        assertEquals(1_000L, h.getLong("runTime"));
        assertEquals(1_000L, h.getLong("hostTime"));
        assertEquals(0L, h.getLong("deviceTime"));
        RecordedEvent k = ops.get("kernel");
        assertEquals("gpu:1", k.getString("device"));
        assertEquals("COMPUTE#0", k.getString("stream"));
        assertEquals(100L, k.getLong("queueWait"));
        assertEquals(1_200L, k.getLong("runTime"));
        assertEquals(200L, k.getLong("hostTime"));
        assertEquals(1_000L, k.getLong("deviceTime"));
    }

    @Test
    void bulkMembersAreEventsOfTheirOwn() throws Exception {
        Profiler p = Profiler.builder().build(); // started by bulkTrace
        Path file = dir.resolve("members.jfr");
        try (Recording r = new Recording()) {
            r.enable(OpEvent.NAME);
            r.enable(BulkMemberEvent.NAME);
            r.start();
            BulkMembersTraceTest.bulkTrace(p);
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> members = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(BulkMemberEvent.NAME)).toList();
        assertEquals(List.of("load", "compute", "store"), members.stream().map(e -> e.getString("memberName")).toList());
        assertEquals(List.of("DONE", "FAILED", "SKIPPED"), members.stream().map(e -> e.getString("outcome")).toList());
        assertEquals(List.of(250L, 500L, 0L), members.stream().map(e -> e.getLong("runTime")).toList());
        assertEquals(List.of(0, 1, 2), members.stream().map(e -> e.getInt("index")).toList());
        for (RecordedEvent e : members) {
            assertEquals(1L, e.getLong("bulkId"));
            assertEquals(BulkMembersTraceTest.BULK, e.getString("bulkName"));
        }
    }

    @Test
    void jfrCanBeTurnedOff() throws Exception {
        Profiler p = Profiler.builder().jfr(false).build();
        p.start(new Fakes.ListenerSink("e").engine);
        Path file = dir.resolve("none.jfr");
        try (Recording r = new Recording()) {
            r.enable(OpEvent.NAME);
            r.start();
            Fakes.run(p.listener(), new FakeOp(1, "x"), 0, 1, -1, 2);
            r.stop();
            r.dump(file);
        }
        p.stop();
        assertTrue(RecordingFile.readAllEvents(file).stream().noneMatch(e -> e.getEventType().getName().equals(OpEvent.NAME)));
        assertEquals(1, p.stats().opCount());
    }
}
