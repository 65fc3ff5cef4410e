package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.Test;

/**
 * Ops released together by one op on the single worker of the CPU priority pool run highest priority
 * first: the worker's same-thread hand-off of a released successor must not jump the priority queue.
 */
class PriorityHandoffTest {
    @Test
    void opsReleasedTogetherRunHighestPriorityFirst() {
        Map<String, String> s = Map.of("depengine.cpu.priorityWorkers", "1", "depengine.hangDoctorMs", "0");
        try (Engine engine = Engine.create("perdevice", EngineConfig.of(s))) {
            for (int round = 0; round < 20; round++) {
                VarHandle gate = engine.newVariable("gate");
                List<Integer> order = Collections.synchronizedList(new ArrayList<>());
                // The gate runs on the priority pool's only worker, so the ops it releases are all
                // released by that worker while it is busy: they are ready at the same time.
                CountDownLatch allPushed = new CountDownLatch(1);
                engine.pushSync(ctx -> allPushed.await(60, TimeUnit.SECONDS), Context.cpu(), List.of(), List.of(gate),
                        FnProperty.CPU_PRIORITIZED, 0, "gate");
                // pushed first, so released first (and handed to the releasing worker, before the fix)
                engine.pushSync(ctx -> order.add(-100), Context.cpu(), List.of(gate), List.of(engine.newVariable()),
                        FnProperty.CPU_PRIORITIZED, -100, "low");
                for (int i = 0; i < 10; i++) {
                    engine.pushSync(ctx -> order.add(100), Context.cpu(), List.of(gate), List.of(engine.newVariable()),
                            FnProperty.CPU_PRIORITIZED, 100, "high" + i);
                }
                allPushed.countDown();
                engine.waitForAll(Duration.ofSeconds(60));
                assertEquals(-100, (int) order.get(10), "round " + round + ": the low-priority op ran before ready "
                        + "higher-priority ones: " + order);
            }
        }
    }
}
