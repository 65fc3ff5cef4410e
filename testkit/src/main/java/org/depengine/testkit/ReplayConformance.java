package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Bulk;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.OprHandle;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.Test;

/**
 * Capture and replay ({@code Engine.capture()}, {@code Graph.replay()}): recording runs nothing; a
 * replay equals pushing the recorded ops again in order (results and {@code version()} counts against
 * the serial oracle, with replays interleaved with ordinary pushes from one to four threads); failures
 * and skips per op in the replay where they happen; consecutive replays overlap where they do not
 * conflict; and listeners see each replayed op under its name with its replay number. The refusals
 * are {@link ReplayRefusalsConformance}'s. With {@code -Ddepengine.test.long=true} the randomized comparisons run many more
 * seeds, ops and replays.
 */
public abstract class ReplayConformance extends EngineTestBase {

    private static boolean longForm() {
        return Boolean.getBoolean("depengine.test.long");
    }

    // ---- recording ---------------------------------------------------------------------------------

    @Test
    void recordingRunsNothingAndEachReplayRunsEveryOpAgain() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        long[] runs = new long[2];
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("first").writes(a).run(ctx -> runs[0]++);
            engine.pushAsync((ctx, done) -> {
                runs[1]++;
                done.complete();
            }, Context.cpu(), List.of(a), List.of(b), FnProperty.NORMAL, 0, "second");
            g = c.graph();
            assertSame(g, c.graph(), "graph() returns the same graph every time");
        }
        engine.waitForAll(BOUND);
        assertArrayEquals(new long[] {0, 0}, runs, "recording runs nothing");
        assertEquals(0, a.version(), "recording registers nothing");
        assertEquals(2, g.size());
        assertEquals(0, g.replays());
        for (int i = 1; i <= 3; i++) {
            g.replay();
        }
        engine.waitForAll(BOUND);
        assertArrayEquals(new long[] {3, 3}, runs, "each replay calls every recorded function again");
        assertEquals(3, a.version());
        assertEquals(3, b.version());
        assertEquals(3, g.replays());
    }

    @Test
    void otherThreadsPushAsUsualWhileAThreadRecords() throws InterruptedException {
        VarHandle v = engine.newVariable("v");
        long[] cell = {0};
        try (Capture c = engine.capture()) {
            engine.op("recorded").writes(v).run(ctx -> cell[0] += 100);
            Thread other = new Thread(() -> {
                engine.op("pushed").writes(v).run(ctx -> cell[0]++);
                engine.waitForVar(v, BOUND);
            }, "replay-test-other-pusher");
            other.start();
            joinBounded(other);
            assertEquals(1, c.graph().size());
        }
        engine.waitForAll(BOUND);
        assertEquals(1, cell[0], "only the other thread's op ran");
    }

    // ---- a replay equals the ops pushed again ------------------------------------------------------

    /**
     * One thread's program: a graph recorded over its own variables (and reads of a shared read-only
     * variable, and increments of a shared counter), replayed {@code k} times with ordinary pushes of
     * other ops of the same workload between the replays. The oracle runs the same sequence serially.
     */
    private final class Program {
        final RandomWorkload graphOps;
        final RandomWorkload between;
        final int replays;
        final double[] data;
        final VarHandle[] vars;
        final Random rnd;
        final VarHandle shared;
        final VarHandle counter;
        final long[] count;
        Graph graph;

        Program(long seed, int graphSize, int replays, int vars, VarHandle shared, VarHandle counter, long[] count) {
            this.graphOps = RandomWorkload.generate(seed, graphSize, vars, 0, 3);
            this.between = RandomWorkload.generate(seed + 1_000, graphSize, vars, 0, 3);
            this.replays = replays;
            this.data = graphOps.initialData();
            this.vars = new VarHandle[vars];
            for (int i = 0; i < vars; i++) {
                this.vars[i] = engine.newVariable("s" + seed + "v" + i);
            }
            this.rnd = new Random(seed);
            this.shared = shared;
            this.counter = counter;
            this.count = count;
        }

        /** Pushes (or, while capturing, records) one op of the workload in a random form. */
        void push(RandomWorkload.Op op) {
            List<VarHandle> reads = new ArrayList<>();
            for (int r : op.reads) {
                reads.add(vars[r]);
            }
            if (rnd.nextBoolean()) {
                reads.add(shared);
            }
            List<Context> contexts = contexts();
            Context ctx = contexts.get(rnd.nextInt(contexts.size()));
            int priority = rnd.nextInt(3);
            int kind = rnd.nextInt(10);
            if (kind == 0) {
                engine.pushAsync((c, done) -> {
                    op.apply(data);
                    done.complete();
                }, ctx, reads, List.of(vars[op.write]), FnProperty.NORMAL, priority, null);
            } else if (kind == 1) {
                engine.op(null).reads(reads.toArray(new VarHandle[0])).writes(vars[op.write]).on(ctx).priority(priority)
                        .arg("kind", 1L).run(c -> op.apply(data));
            } else {
                FnProperty prop = kind == 2 ? FnProperty.NO_SKIP : FnProperty.NORMAL;
                engine.pushSync(c -> op.apply(data), ctx, reads, List.of(vars[op.write]), prop, priority, null);
            }
            if (rnd.nextInt(20) == 0) {
                engine.pushSync(c -> count[0]++, ctx, List.of(), List.of(counter), FnProperty.NORMAL, priority, "count");
            }
        }

        void capture() {
            try (Capture c = engine.capture()) {
                for (RandomWorkload.Op op : graphOps.ops) {
                    push(op);
                }
                graph = c.graph();
            }
        }

        /** Replays and pushes as the program says; returns the ordinary ops pushed between replays, in order. */
        void run() {
            int slice = between.ops.size() / replays;
            for (int r = 0; r < replays; r++) {
                graph.replay();
                for (RandomWorkload.Op op : between.ops.subList(r * slice, (r + 1) * slice)) {
                    push(op);
                }
            }
        }

        void check(String what) {
            double[] expected = graphOps.initialData();
            long[] versions = new long[vars.length];
            int slice = between.ops.size() / replays;
            for (int r = 0; r < replays; r++) {
                for (RandomWorkload.Op op : graphOps.ops) {
                    op.apply(expected);
                    versions[op.write]++;
                }
                for (RandomWorkload.Op op : between.ops.subList(r * slice, (r + 1) * slice)) {
                    op.apply(expected);
                    versions[op.write]++;
                }
            }
            assertArrayEquals(expected, data, what);
            for (int i = 0; i < vars.length; i++) {
                assertEquals(versions[i], vars[i].version(), "version of " + vars[i].name() + ", " + what);
            }
            assertEquals(replays, graph.replays(), what);
        }
    }

    @Test
    void randomizedReplaysInterleavedWithPushesEqualTheSerialRun() throws InterruptedException {
        int seeds = longForm() ? 40 : 4;
        int graphSize = longForm() ? 400 : 60;
        int replays = longForm() ? 20 : 5;
        for (int seed = 0; seed < seeds; seed++) {
            int threads = 1 + seed % 4;
            VarHandle shared = engine.newVariable("shared");
            VarHandle counter = engine.newVariable("counter");
            long[] count = {0};
            engine.op("init shared").writes(shared).run(c -> { });
            List<Program> programs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                programs.add(new Program(seed * 10L + t, graphSize, replays, 12, shared, counter, count));
            }
            List<ThrowingRunnable> pushers = new ArrayList<>();
            for (Program p : programs) {
                pushers.add(() -> {
                    p.capture();
                    p.run();
                });
            }
            runOnThreads("replay-test-pusher", pushers);
            engine.waitForAll(BOUND);
            for (Program p : programs) {
                p.check("seed " + seed + ", " + threads + " threads");
            }
            assertEquals(count[0], counter.version(), "every recorded and pushed increment ran once per push or replay");
            assertEquals(1, shared.version(), "read-only in every graph");
        }
    }

    @Test
    void consecutiveReplaysWaitOnlyForTheOpsTheyConflictWith() throws InterruptedException {
        assumeTrue(threaded(), "needs an engine with threads of its own: a held op blocks the naive engine's pusher");
        VarHandle slow = engine.newVariable("slow");
        VarHandle fast = engine.newVariable("fast");
        List<CallbackOnComplete> held = Collections.synchronizedList(new ArrayList<>());
        long[] fastRuns = {0};
        Graph g;
        try (Capture c = engine.capture()) {
            engine.pushAsync((ctx, done) -> held.add(done), Context.cpu(), List.of(), List.of(slow), FnProperty.NORMAL, 0, "held");
            engine.op("fast").writes(fast).run(ctx -> fastRuns[0]++);
            g = c.graph();
        }
        g.replay();
        g.replay();
        engine.waitForVar(fast, BOUND); // both replays' "fast" ran while the first "held" still holds slow
        assertEquals(2, fastRuns[0]);
        assertEquals(2, fast.version());
        // The first replay's held op may not have started yet (fast need not wait for it): wait until it has.
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (held.isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "the first replay's held op never started");
            Thread.onSpinWait();
        }
        assertEquals(1, held.size(), "the second replay's held op waits for the first's");
        assertEquals(0, slow.version());
        held.get(0).complete();
        while (held.size() < 2) {
            assertTrue(System.nanoTime() < deadline, "the second replay's held op never started");
            Thread.onSpinWait();
        }
        held.get(1).complete();
        engine.waitForVar(slow, BOUND);
        assertEquals(2, slow.version());
    }

    // ---- failures ------------------------------------------------------------------------------------

    @Test
    void aFailingOpInReplayKFailsThatReplaysDependentsOnly() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        VarHandle c = engine.newVariable("c");
        VarHandle d = engine.newVariable("d");
        long[] runs = new long[4];
        int[] replay = {0};
        IllegalStateException boom = new IllegalStateException("boom in replay 3");
        Graph g;
        try (Capture cap = engine.capture()) {
            engine.op("source").writes(a).run(ctx -> {
                runs[0]++;
                if (++replay[0] == 3) {
                    throw boom;
                }
            });
            engine.op("dependent").reads(a).writes(b).run(ctx -> runs[1]++);
            engine.op("independent").writes(c).run(ctx -> runs[2]++);
            engine.pushSync(ctx -> runs[3]++, Context.cpu(), List.of(a), List.of(d), FnProperty.NO_SKIP, 0, "no-skip");
            g = cap.graph();
        }
        g.replay();
        g.replay();
        engine.waitForAll(BOUND);
        g.replay();
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(b, BOUND));
        assertSame(boom, e.getCause(), "the replayed op's own throwable");
        assertTrue(e.getMessage().contains("source"), e.getMessage());
        assertDoesNotThrow(() -> engine.waitForVar(c, BOUND), "an op that does not depend on the failure runs");
        assertDoesNotThrow(() -> engine.waitForVar(d, BOUND), "a NO_SKIP op runs despite the failure it reads");
        assertArrayEquals(new long[] {3, 2, 3, 3}, runs, "the dependent is skipped; NO_SKIP and the independent op run");
        assertEquals(3, b.version(), "a skipped write counts");
        g.replay(); // the failure was reported: the next replay runs everything
        engine.waitForAll(BOUND);
        assertArrayEquals(new long[] {4, 3, 4, 4}, runs);
    }

    // ---- listeners and profilers -------------------------------------------------------------------

    @Test
    void listenersSeeEachReplayedOpUnderItsNameWithItsReplayNumber() {
        VarHandle v = engine.newVariable("v");
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        OpListener l = new OpListener() {
            @Override
            public void pushed(OpInfo op, long nanoTime) {
                seen.add(op.name() + " " + op.args() + " p" + op.priority());
            }
        };
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("step").writes(v).priority(2).arg("layer", 7L).run(ctx -> { });
            engine.op("log").reads(v).run(ctx -> { });
            g = c.graph();
        }
        engine.addListener(l);
        g.replay();
        g.replay();
        engine.removeListener(l);
        engine.waitForAll(BOUND);
        assertEquals(List.of("step {layer=7, replay=1} p2", "log {replay=1} p0",
                "step {layer=7, replay=2} p2", "log {replay=2} p0"), new ArrayList<>(seen));
    }
}
