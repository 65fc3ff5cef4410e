package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.profiler.Fakes.FakeOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace file is valid JSON whenever it is read, also while it is rewritten every few ms. */
class PeriodicDumpTest {
    @TempDir
    Path dir;

    @Test
    void fileIsAlwaysValidJsonDuringPeriodicDumps() throws Exception {
        Path file = dir.resolve("live.json");
        Profiler p = Profiler.builder().file(file).dumpPeriod(Duration.ofMillis(2)).ringCapacity(1 << 13).jfr(false).build();
        p.start(new Fakes.ListenerSink("e").engine);
        AtomicBoolean stop = new AtomicBoolean();
        Thread recorder = new Thread(() -> {
            VarHandle v = Fakes.var("v");
            FakeOp prev = null;
            long id = 0;
            while (!stop.get()) {
                FakeOp op = new FakeOp(id, "op" + (id % 7)).writes(v);
                long t = System.nanoTime();
                p.listener().ready(op, t);
                p.listener().started(op, t + 10);
                op.outcome = OpInfo.Outcome.DONE;
                p.listener().finished(op, t + 100);
                if (prev != null) {
                    p.listener().released(prev, op);
                }
                prev = op;
                id++;
            }
        }, "recorder");
        recorder.start();
        int parsed = 0;
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        long until = start + 1_500_000_000L;
        long bound = start + 60_000_000_000L;
        double lastOps = -1;
        int changes = 0;
        // At least 1.5 s of reads against the dumps, and on a slow or loaded machine on until enough
        // reads and rewrites were seen (within a bound), so the figures below do not depend on its speed.
        while (System.nanoTime() < bound && (System.nanoTime() < until || parsed < 5 || changes < 2)) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                continue; // not written yet
            }
            try {
                TraceView t = new TraceView(text);
                parsed++;
                double ops = (Double) t.otherData().get("ops");
                if (ops != lastOps) {
                    changes++;
                    lastOps = ops;
                }
            } catch (IllegalArgumentException e) {
                failures.add(e.getMessage());
            }
        }
        stop.set(true);
        recorder.join();
        p.stop();
        assertEquals(List.of(), failures);
        assertTrue(parsed >= 5, "parsed " + parsed);
        assertTrue(changes >= 2, "the file was rewritten with new content: " + changes);
        TraceView last = TraceView.read(file);
        assertTrue(last.hostOps().size() > 0);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(file), left.toList(), "no temporary files are left behind");
        }
    }

    @Test
    void aFailedDumpLeavesThePreviousFile() throws IOException {
        Profiler p = Profiler.builder().build();
        p.start(new Fakes.ListenerSink("e").engine);
        Fakes.run(p.listener(), new FakeOp(1, "x"), 0, 1, -1, 2);
        Path first = dir.resolve("t.json");
        p.dump(first);
        // A name of 250 bytes is a valid file, but the dump's temporary sibling (the name plus a suffix)
        // is over the 255-byte limit on file names, so a dump to it fails before anything is written.
        Path file = dir.resolve("t".repeat(245) + ".json");
        Files.copy(first, file);
        String before = Files.readString(file);
        Fakes.run(p.listener(), new FakeOp(2, "y"), 3, 4, -1, 5);
        assertThrows(IOException.class, () -> p.dump(file), "the dump did not fail");
        assertEquals(before, Files.readString(file), "a failed dump changed the previous file");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(Set.of(first, file), left.collect(Collectors.toSet()), "a failed dump left files behind");
        }
        p.dump(first);
        assertTrue(Files.readString(first).contains("\"y\""), "a dump that went through would have changed the file");
        p.stop();
    }
}
