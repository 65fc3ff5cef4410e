package org.depengine.engine.naive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.depengine.api.Capture;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.EngineMetrics;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.exec.CurrentOp;
import org.depengine.core.tracker.OpBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The naive engine replays a graph of synchronous CPU ops as one op ({@code core.replay.WholeReplay}):
 * that it does, and what must not change because it does (failures under the op's own name, skips,
 * counts, versions), against the same graph replayed op by op while a listener is set. The values
 * against a serial run are the testkit's {@code ReplayConformance}, which runs on naive with and
 * without a listener.
 */
class WholeReplayTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    /** A listener that wants nothing: while it is set, replays go op by op. */
    private static final OpListener QUIET = new OpListener() {
        @Override
        public void pushed(OpInfo op, long nanoTime) {
        }
    };
    private final Engine engine = Engine.create("naive", EngineConfig.of(Map.of("depengine.hangDoctorMs", "0")));

    @AfterEach
    void close() {
        engine.close();
    }

    /** How many ops the op running on this thread stands for (1 for an op of its own). */
    private static int runningStandsFor() {
        OpBlock op = CurrentOp.get();
        return op.def().ops();
    }

    @Test
    void aReplayOfSyncCpuOpsRunsAsOneOpAndWithAListenerOpByOp() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        List<Integer> seen = new ArrayList<>();
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("first").writes(a).run(ctx -> seen.add(runningStandsFor()));
            engine.op("second").reads(a).writes(b).run(ctx -> seen.add(runningStandsFor()));
            engine.op("third").writes(a).run(ctx -> seen.add(runningStandsFor()));
            g = c.graph();
        }
        g.replay();
        assertEquals(List.of(3, 3, 3), seen, "each op ran inside one op that stands for the three");
        seen.clear();
        engine.addListener(QUIET);
        g.replay();
        engine.removeListener(QUIET);
        assertEquals(List.of(1, 1, 1), seen, "with a listener set, each op ran as itself");
        engine.waitForAll(BOUND);
        assertEquals(4, a.version(), "every write counts, the one the whole op's completion counts and the extra");
        assertEquals(2, b.version());
    }

    @Test
    void aFailureInAWholeReplayIsTheOpsOwnAndItsCountsAreThoseOfAReplayOpByOp() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        VarHandle c = engine.newVariable("c");
        IllegalStateException boom = new IllegalStateException("boom");
        int[] ran = new int[3];
        Graph g;
        try (Capture cap = engine.capture()) {
            engine.op(null).writes(a).run(ctx -> {
                ran[0]++;
                throw boom;
            });
            engine.op("dependent").reads(a).writes(b).run(ctx -> ran[1]++);
            engine.op("independent").writes(c).run(ctx -> ran[2]++);
            g = cap.graph();
        }
        EngineMetrics m = engine.metrics();
        long pushedBefore = m.opsPushed();
        long replayedBefore = m.opsReplayed();
        long completedBefore = m.groups().stream().mapToLong(EngineMetrics.Group::completed).sum();
        g.replay();
        assertEquals(pushedBefore + 3, m.opsPushed(), "a whole replay counts each of its ops pushed");
        assertEquals(replayedBefore + 3, m.opsReplayed());
        assertEquals(completedBefore + 3, m.groups().stream().mapToLong(EngineMetrics.Group::completed).sum(),
                "and run");
        assertEquals(1, m.opsFailed());
        assertEquals(1, m.opsSkipped());
        assertEquals(1, ran[0]);
        assertEquals(0, ran[1], "the dependent is skipped");
        assertEquals(1, ran[2], "the op after the failure that does not depend on it runs");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(b, BOUND));
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().matches("(?s).*op#\\d+.*"), "the unnamed op fails under its generated name: " + e.getMessage());
        assertEquals(1, b.version(), "a skipped write counts");
    }

    @Test
    void anOpReadsTheWriteCountsOfTheOpsBeforeItAsOpByOp() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        List<Long> seen = new ArrayList<>();
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("writes a").writes(a).run(ctx -> seen.add(a.version()));
            engine.op("writes a again").writes(a).run(ctx -> seen.add(a.version()));
            engine.op("reads a's count").reads(a).writes(b).run(ctx -> seen.add(a.version()));
            g = c.graph();
        }
        g.replay();
        engine.addListener(QUIET);
        g.replay(); // op by op
        engine.removeListener(QUIET);
        assertEquals(List.of(0L, 1L, 2L, 2L, 3L, 4L), seen, "each op sees the writes of the ops before it counted");
        assertEquals(4, a.version());
        assertEquals(2, b.version());
    }

    @Test
    void aWholeReplayFromInsideItsOwnOpIsRefused() {
        VarHandle a = engine.newVariable("a");
        Graph[] g = new Graph[1];
        Throwable[] refused = new Throwable[1];
        try (Capture c = engine.capture()) {
            engine.op("calls replay").writes(a).run(ctx -> {
                if (g[0] != null) {
                    try {
                        g[0].replay();
                    } catch (IllegalStateException e) {
                        refused[0] = e;
                    }
                }
            });
            engine.op("second").writes(a).run(ctx -> { });
            g[0] = c.graph();
        }
        g[0].replay();
        engine.waitForAll(BOUND);
        assertTrue(refused[0] != null && refused[0].getMessage().contains("inside its own op"), String.valueOf(refused[0]));
    }
}
