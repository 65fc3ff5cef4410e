package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineMetrics;
import org.depengine.api.FnProperty;
import org.depengine.api.spi.EngineConfig;
import org.depengine.testkit.Eventually;
import org.junit.jupiter.api.Test;

/**
 * A worker group's queued and active counts while its one worker is held: a FIFO group (cpu:0's) and a
 * priority group (the CPU priority pool), whose queues differ.
 */
class GroupMetricsTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void queuedCountsTheReadyOpsBehindABusyWorkerInFifoAndPriorityGroups() throws Exception {
        Map<String, String> s = Map.of("depengine.cpu.workers", "1", "depengine.cpu.priorityWorkers", "1",
                "depengine.hangDoctorMs", "0");
        for (FnProperty prop : new FnProperty[] {FnProperty.NORMAL, FnProperty.CPU_PRIORITIZED}) {
            try (Engine engine = Engine.create("perdevice", EngineConfig.of(s))) {
                EngineMetrics m = engine.metrics();
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                engine.pushSync(ctx -> {
                    started.countDown();
                    release.await(60, TimeUnit.SECONDS);
                }, Context.cpu(), List.of(), List.of(engine.newVariable()), prop, 0, "held");
                assertTrue(started.await(60, TimeUnit.SECONDS));
                for (int i = 0; i < 3; i++) {
                    engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(engine.newVariable()), prop, 0, "ready " + i);
                }
                EngineMetrics.Group g = m.groups().get(0);
                String expectedName = prop == FnProperty.NORMAL ? "depengine-perdevice-cpu0-worker"
                        : "depengine-perdevice-cpu-priority";
                assertEquals(expectedName, g.name());
                assertEquals(1, m.groups().size(), "one group made: " + m.groups());
                assertEquals(1, g.threads());
                assertEquals(3, g.queued(), "three ready ops behind the held one");
                assertEquals(1, g.active());
                release.countDown();
                engine.waitForAll(BOUND);
                Eventually.equals(4, g::completed, "ops run by " + g.name());
                Eventually.equals(0, g::active, "active threads of " + g.name());
                assertEquals(0, g.queued());
                assertEquals(4, m.opsPushed());
            }
        }
    }
}
