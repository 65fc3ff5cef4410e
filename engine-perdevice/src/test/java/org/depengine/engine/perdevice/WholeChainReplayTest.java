package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.depengine.api.Capture;
import org.depengine.api.Engine;
import org.depengine.api.EngineMetrics;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.depengine.core.exec.CurrentOp;
import org.depengine.testkit.Eventually;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * On an engine with threads of its own, a captured chain (each op conflicts with the one before it)
 * replays as one op ({@code core.replay.WholeReplay}), counted as its ops, and a graph with ops that
 * could run in parallel replays op by op. The values against a serial run: testkit's
 * {@code ReplayConformance}, on this engine.
 */
class WholeChainReplayTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private final Engine engine = Engine.create("perdevice", EngineConfig.of(Map.of("depengine.hangDoctorMs", "0")));

    @AfterEach
    void close() {
        engine.close();
    }

    /** How many ops the op running on this thread stands for (1 for an op of its own). */
    private static int runningStandsFor() {
        return CurrentOp.get().def().ops();
    }

    @Test
    void aChainReplaysAsOneOpCountedAsItsOps() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("first").writes(a).run(ctx -> seen.add(runningStandsFor()));
            engine.op("second").reads(a).writes(b).run(ctx -> seen.add(runningStandsFor()));
            engine.op("third").reads(b).writes(a).run(ctx -> seen.add(runningStandsFor()));
            g = c.graph();
        }
        EngineMetrics m = engine.metrics();
        long pushed = m.opsPushed();
        g.replay();
        engine.waitForAll(BOUND);
        assertEquals(List.of(3, 3, 3), seen, "the chain's ops ran inside one op standing for the three");
        assertEquals(pushed + 3, m.opsPushed());
        assertEquals(2, a.version());
        assertEquals(1, b.version());
        // A worker counts an op run just after the op finished, so a wait for the op can return first.
        Eventually.equals(m.opsPushed(), () -> m.groups().stream().mapToLong(EngineMetrics.Group::completed).sum(),
                "ops counted run, against ops pushed");
    }

    @Test
    void aGraphWhoseOpsCouldRunInParallelReplaysOpByOp() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        List<Integer> seen = new CopyOnWriteArrayList<>();
        Graph g;
        try (Capture c = engine.capture()) {
            engine.op("writes a").writes(a).run(ctx -> seen.add(runningStandsFor()));
            engine.op("writes b").writes(b).run(ctx -> seen.add(runningStandsFor()));
            g = c.graph();
        }
        g.replay();
        engine.waitForAll(BOUND);
        assertEquals(List.of(1, 1), seen);
    }
}
