package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Bulk;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.OprHandle;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What capture and replay refuse, each with a message that names the call and what to do instead, and
 * with nothing kept or pushed: waits, close, bulks, deletion and nested captures while recording; pushes
 * to another engine; captures in a running op or with a bulk open; graphs over deleted variables or
 * operators, or on a closed engine; a replay from inside one of its own ops or while the thread records;
 * bad pushes recorded. A replay racing the deletion of one of its variables runs wholly or not at all.
 */
public abstract class ReplayRefusalsConformance extends EngineTestBase {

    private static void assertRefused(Executable call, String... mentions) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), () -> "the message should mention '" + m + "': " + e.getMessage());
        }
    }

    @Test
    void waitsCloseBulkDeletionAndNestedCapturesAreRefusedWhileRecording() {
        VarHandle v = engine.newVariable("v");
        long[] cell = {0};
        try (Capture c = engine.capture()) {
            engine.op("recorded").writes(v).run(ctx -> cell[0]++);
            assertRefused(() -> engine.waitForVar(v), "waitForVar(v)", "capture");
            assertRefused(() -> engine.waitForVar(v, BOUND), "waitForVar(v)");
            assertRefused(() -> engine.waitForAll(), "waitForAll()");
            assertRefused(() -> engine.waitForAll(BOUND), "waitForAll()");
            assertRefused(() -> engine.whenReady(v), "whenReady(v)");
            assertRefused(() -> engine.whenAllDone(), "whenAllDone()");
            assertRefused(() -> engine.close(), "close()");
            assertFalse(engine.isClosed(), "a refused close leaves the engine open");
            assertRefused(() -> engine.bulk(4), "bulk(4)");
            assertRefused(() -> engine.deleteVariable(ctx -> { }, Context.cpu(), v), "deleteVariable(v)");
            assertRefused(() -> engine.capture(), "capture()", "nest");
            engine.op("still recorded").writes(v).run(ctx -> cell[0]++);
            assertEquals(2, c.graph().size(), "refusals leave the capture recording");
        }
        engine.waitForAll(BOUND);
        assertEquals(0, cell[0]);
    }

    @Test
    void aCaptureRefusesPushesToAnotherEngine() {
        try (Engine other = newEngine()) {
            VarHandle w = other.newVariable("w");
            try (Capture c = engine.capture()) {
                assertRefused(() -> other.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(w)), "another engine",
                        other.name());
                assertRefused(() -> other.waitForAll(), "waitForAll()");
                assertEquals(0, c.graph().size());
            }
            other.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(w));
            other.waitForVar(w, BOUND);
            assertEquals(1, w.version(), "pushes to the other engine run again once the capture is closed");
        }
    }

    /** {@code isCapturing()} is true only on the recording thread, for the captured engine, while it records. */
    @Test
    void isCapturingIsTrueOnlyOnTheRecordingThreadForTheCapturedEngine() throws Exception {
        try (Engine other = newEngine()) {
            assertFalse(engine.isCapturing(), "before the capture");
            try (Capture c = engine.capture()) {
                assertTrue(engine.isCapturing(), "the recording thread, the captured engine");
                assertFalse(other.isCapturing(), "another engine");
                boolean[] elsewhere = new boolean[1];
                Thread t = new Thread(() -> elsewhere[0] = engine.isCapturing(), "not recording");
                t.start();
                joinBounded(t);
                assertFalse(elsewhere[0], "another thread");
                c.graph();
                assertFalse(engine.isCapturing(), "once the graph is taken");
            }
        }
    }

    @Test
    void aCaptureIsRefusedWhileTheThreadHasABulkOpen() {
        try (Bulk b = engine.bulk(4)) {
            assertRefused(() -> engine.capture(), "bulk");
        }
        try (Capture c = engine.capture()) {
            assertEquals(0, c.graph().size(), "the refused capture left nothing open");
        }
    }

    @Test
    void onlyTheRecordingThreadEndsTheCapture() throws InterruptedException {
        VarHandle v = engine.newVariable("v");
        try (Capture c = engine.capture()) {
            engine.op("recorded").writes(v).run(ctx -> { });
            AtomicReference<Throwable> refused = new AtomicReference<>();
            Thread t = new Thread(() -> {
                refused.set(assertThrows(IllegalStateException.class, c::graph));
                assertThrows(IllegalStateException.class, c::close);
            }, "replay-test-stranger");
            t.start();
            joinBounded(t);
            assertTrue(refused.get().getMessage().contains("only the thread that opened it"), refused.get().getMessage());
            engine.op("still recorded").writes(v).run(ctx -> { });
            assertEquals(2, c.graph().size());
        }
    }

    @Test
    void aGraphOverADeletedVariableIsRefusedAndPushesNothing() {
        VarHandle kept = engine.newVariable("kept");
        VarHandle gone = engine.newVariable("gone");
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("writes kept").writes(kept).run(ctx -> { });
            engine.op("uses gone").reads(kept).writes(gone).run(ctx -> { });
            g = c.graph();
        }
        g.replay();
        engine.deleteVariable(ctx -> { }, Context.cpu(), gone);
        engine.waitForAll(BOUND);
        assertRefused(g::replay, "gone", "uses gone", "deleted");
        engine.waitForAll(BOUND);
        assertEquals(1, kept.version(), "a refused replay pushes nothing");
        assertEquals(1, g.replays());
    }

    @Test
    void aReplayRacingTheDeletionOfItsVariableRunsWhollyOrNotAtAll() throws InterruptedException {
        VarHandle kept = engine.newVariable("kept");
        VarHandle gone = engine.newVariable("gone");
        long[] runs = {0};
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("first").writes(kept).run(ctx -> runs[0]++);
            engine.op("uses gone").reads(kept).writes(gone).run(ctx -> runs[0]++);
            engine.op("last").reads(gone).writes(kept).run(ctx -> runs[0]++);
            g = c.graph();
        }
        Thread deleter = new Thread(() -> {
            while (g.replays() < 5) {
                Thread.onSpinWait();
            }
            engine.deleteVariable(ctx -> { }, Context.cpu(), gone);
        }, "replay-test-deleter");
        deleter.start();
        long ran = 0;
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (true) {
            assertTrue(System.nanoTime() < deadline, "the deletion never refused a replay");
            try {
                g.replay();
                ran++;
            } catch (IllegalStateException refused) {
                assertTrue(refused.getMessage().contains("gone"), refused.getMessage());
                break;
            }
        }
        joinBounded(deleter);
        engine.waitForAll(BOUND);
        assertEquals(3 * ran, runs[0], "each replay ran all its ops, or none");
        assertEquals(2 * ran, kept.version(), "each replay counted all its writes, or none");
    }

    @Test
    void aGraphOverADeletedOperatorIsRefusedAndPushesNothing() {
        VarHandle v = engine.newVariable("v");
        OprHandle opr = engine.newOperator((ctx, done) -> done.complete(), List.of(), List.of(v), FnProperty.NORMAL,
                "kept operator");
        Graph g;
        try (Capture c = engine.capture()) {
            engine.push(opr, Context.cpu(), 0, true);
            g = c.graph();
        }
        g.replay();
        engine.waitForAll(BOUND);
        engine.deleteOperator(opr);
        assertRefused(g::replay, "kept operator", "deleted", "Capture a new graph");
        engine.waitForAll(BOUND);
        assertEquals(1, v.version(), "a refused replay pushes nothing");
        assertEquals(1, g.replays());
    }

    @Test
    void aCaptureIsRefusedInsideARunningOp() {
        VarHandle v = engine.newVariable("v");
        AtomicReference<Throwable> inside = new AtomicReference<>();
        engine.op("tries to capture").writes(v).run(ctx -> {
            try (Capture c = engine.capture()) {
                inside.set(new AssertionError("capture() was not refused inside an op; it recorded " + c.graph().size()));
            } catch (Throwable e) {
                inside.set(e);
            }
        });
        engine.waitForAll(BOUND);
        assertTrue(inside.get() instanceof IllegalStateException, () -> "refused with an IllegalStateException: " + inside.get());
        assertTrue(inside.get().getMessage().contains("tries to capture"), inside.get().getMessage());
        assertTrue(inside.get().getMessage().contains("outside ops"), inside.get().getMessage());
        VarHandle w = engine.newVariable("w");
        engine.op("pushed after").writes(w).run(ctx -> { });
        engine.waitForVar(w, BOUND);
        assertEquals(1, w.version(), "pushes run as usual after the refused capture");
    }

    @Test
    void aGraphIsRefusedOnAClosedEngine() {
        VarHandle v = engine.newVariable("v");
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("recorded").writes(v).run(ctx -> { });
            g = c.graph();
        }
        engine.close();
        assertRefused(g::replay, "closed");
        assertRefused(() -> engine.capture(), "closed");
    }

    @Test
    void aReplayFromInsideOneOfItsOwnOpsIsRefused() {
        VarHandle v = engine.newVariable("v");
        AtomicReference<Graph> self = new AtomicReference<>();
        AtomicReference<Throwable> inside = new AtomicReference<>();
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("replays itself").writes(v).run(ctx -> {
                try {
                    self.get().replay();
                } catch (Throwable e) {
                    inside.set(e);
                }
            });
            g = c.graph();
        }
        self.set(g);
        g.replay();
        engine.waitForAll(BOUND);
        assertTrue(inside.get() instanceof IllegalStateException, () -> "refused with an IllegalStateException: " + inside.get());
        assertTrue(inside.get().getMessage().contains("replays itself"), inside.get().getMessage());
        assertEquals(1, g.replays());
        assertEquals(1, v.version());
    }

    @Test
    void aReplayIsRefusedWhileTheThreadRecords() {
        VarHandle v = engine.newVariable("v");
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("recorded").writes(v).run(ctx -> { });
            g = c.graph();
        }
        try (Capture c = engine.capture()) {
            assertRefused(g::replay, "replay()");
            assertEquals(0, c.graph().size());
        }
        assertEquals(0, g.replays());
    }

    @Test
    void badPushesAreRefusedWhenRecordedAndKeepNothing() {
        VarHandle v = engine.newVariable("v");
        try (Capture c = engine.capture()) {
            assertThrows(IllegalArgumentException.class,
                    () -> engine.pushSync(ctx -> { }, Context.cpu(), List.of(v), List.of(v)));
            assertThrows(NullPointerException.class,
                    () -> engine.pushSync(null, Context.cpu(), List.of(), List.of(v)));
            assertThrows(IllegalArgumentException.class,
                    () -> engine.pushSync(ctx -> { }, Context.of("no-such-device-type", 0), List.of(), List.of(v)));
            assertEquals(0, c.graph().size());
        }
    }
}

