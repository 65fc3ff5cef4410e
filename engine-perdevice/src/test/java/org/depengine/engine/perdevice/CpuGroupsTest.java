package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.Test;

/**
 * Each CPU id's ops run on that id's workers only: a successor released by a cpu:0 worker for cpu:1
 * goes through cpu:1's group, and one released for cpu:0 runs next on the releasing worker.
 */
class CpuGroupsTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    /** Runs an op on cpu:{@code id}'s single worker and returns that worker. */
    private static Thread workerOf(Engine e, int id) {
        AtomicReference<Thread> worker = new AtomicReference<>();
        e.pushSync(ctx -> worker.set(Thread.currentThread()), Context.cpu(id), List.of(), List.of(e.newVariable()));
        e.waitForAll(BOUND);
        return worker.get();
    }

    @Test
    void aChainAlternatingCpuIdsRunsEachLinkOnItsOwnIdsWorker() throws Exception {
        try (Engine e = Engine.create("perdevice", EngineConfig.of(Map.of("depengine.cpu.workers", "1",
                "depengine.hangDoctorMs", "0")))) {
            Thread cpu0 = workerOf(e, 0);
            Thread cpu1 = workerOf(e, 1);
            VarHandle v = e.newVariable("chain");
            // A gate on cpu:0 holds the chain until every link is pushed, so each link is released by
            // the completion of the one before it, on a worker.
            CountDownLatch open = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            e.pushSync(ctx -> {
                started.countDown();
                open.await(BOUND.toSeconds(), TimeUnit.SECONDS);
            }, Context.cpu(0), List.of(), List.of(v), FnProperty.NORMAL, 0, "gate");
            assertTrue(started.await(BOUND.toSeconds(), TimeUnit.SECONDS));
            int links = 100;
            AtomicReferenceArray<Thread> ranOn = new AtomicReferenceArray<>(links);
            for (int i = 0; i < links; i++) {
                int k = i;
                e.pushSync(ctx -> ranOn.set(k, Thread.currentThread()), Context.cpu(i % 2 == 0 ? 1 : 0), List.of(),
                        List.of(v), FnProperty.NORMAL, 0, "link-" + i);
            }
            EngineDiagnostics before = e.diagnostics();
            open.countDown();
            e.waitForVar(v);
            EngineDiagnostics after = e.diagnostics();
            for (int i = 0; i < links; i++) {
                assertSame(i % 2 == 0 ? cpu1 : cpu0, ranOn.get(i), "link " + i + " ran on " + ranOn.get(i).getName());
            }
            // Every link's successor belongs to the other id: none runs on the releasing worker.
            assertEquals(0, after.counter("handOffs") - before.counter("handOffs"), "links handed off");
        }
    }
}
