package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cross-group hand-off between CPU ids: a successor released by a cpu:0 worker for cpu:1, whose
 * group has nothing queued, runs next on the releasing worker instead of going through cpu:1's queue; it never makes the
 * releasing group's own queued ops wait, and ops released together still reach both groups.
 */
class CrossGroupHandOffTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    private static Engine engine(boolean crossGroup) {
        return Engine.create("perdevice", EngineConfig.of(Map.of("depengine.cpu.workers", "1",
                "depengine.hangDoctorMs", "0", "depengine.worker.crossGroupHandOff", Boolean.toString(crossGroup))));
    }

    /** Runs an op on cpu:{@code id}'s single worker and returns that worker. */
    private static Thread workerOf(Engine e, int id) {
        AtomicReference<Thread> worker = new AtomicReference<>();
        e.pushSync(ctx -> worker.set(Thread.currentThread()), Context.cpu(id), List.of(), List.of(e.newVariable()));
        e.waitForAll(BOUND);
        return worker.get();
    }

    /** A sync gate on cpu:0 writing {@code v}, held until {@code open}; returns once it runs. */
    private static AtomicReference<Thread> gate(Engine e, VarHandle v, CountDownLatch open) throws InterruptedException {
        AtomicReference<Thread> ran = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        e.pushSync(ctx -> {
            ran.set(Thread.currentThread());
            started.countDown();
            open.await(BOUND.toSeconds(), TimeUnit.SECONDS);
        }, Context.cpu(0), List.of(), List.of(v), FnProperty.NORMAL, 0, "gate");
        assertTrue(started.await(BOUND.toSeconds(), TimeUnit.SECONDS));
        return ran;
    }

    @ParameterizedTest(name = "crossGroupHandOff={0}")
    @ValueSource(booleans = {true, false})
    void aChainAlternatingCpuIdsStaysOnTheReleasingWorkerUnlessTurnedOff(boolean crossGroup) throws Exception {
        try (Engine e = engine(crossGroup)) {
            Thread cpu1 = workerOf(e, 1);
            VarHandle v = e.newVariable("chain");
            CountDownLatch open = new CountDownLatch(1);
            AtomicReference<Thread> cpu0 = gate(e, v, open);
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
            long cross = after.counter("crossGroupHandOffs") - before.counter("crossGroupHandOffs");
            for (int i = 0; i < links; i++) {
                Thread expected = crossGroup || i % 2 == 1 ? cpu0.get() : cpu1;
                assertSame(expected, ranOn.get(i), "link " + i + " ran on " + ranOn.get(i).getName());
            }
            assertEquals(crossGroup ? links / 2 : 0, cross, "cpu:1 links run by cpu:0's worker");
            if (crossGroup) {
                assertEquals(links / 2, after.counter("handOffs") - before.counter("handOffs"), "cpu:0 links handed off");
                assertEquals(0, after.counter("wakeUps") - before.counter("wakeUps"), "wake-ups paid by the chain");
            }
        }
    }

    @Test
    void anotherGroupsSuccessorGoesBackWhenTheReleasingGroupHasQueuedOps() throws Exception {
        try (Engine e = engine(true)) {
            // cpu:1's only worker is held busy until cpu:0's queued op has run, so the successor, once back
            // in cpu:1's queue, cannot run there first; afterwards any idle worker of the family may take it.
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            e.pushSync(ctx -> {
                holding.countDown();
                release.await(BOUND.toSeconds(), TimeUnit.SECONDS);
            }, Context.cpu(1), List.of(), List.of(e.newVariable()), FnProperty.NORMAL, 0, "cpu1 busy");
            assertTrue(holding.await(BOUND.toSeconds(), TimeUnit.SECONDS));
            VarHandle v = e.newVariable("v");
            CountDownLatch open = new CountDownLatch(1);
            gate(e, v, open);
            AtomicReference<Thread> successor = new AtomicReference<>();
            e.pushSync(ctx -> successor.set(Thread.currentThread()), Context.cpu(1), List.of(), List.of(v),
                    FnProperty.NORMAL, 0, "cpu1 successor");
            // Ready at once, so queued on cpu:0 behind the busy gate; no other worker is idle to take it.
            AtomicReference<Thread> successorBeforeQueued = new AtomicReference<>();
            CountDownLatch queuedRan = new CountDownLatch(1);
            e.pushSync(ctx -> {
                successorBeforeQueued.set(successor.get());
                queuedRan.countDown();
            }, Context.cpu(0), List.of(), List.of(e.newVariable()), FnProperty.NORMAL, 0, "queued");
            open.countDown();
            assertTrue(queuedRan.await(BOUND.toSeconds(), TimeUnit.SECONDS));
            release.countDown();
            e.waitForAll(BOUND);
            // Kept on cpu:0's worker, the successor would have run right after the gate, before the queued op.
            assertNull(successorBeforeQueued.get(), "cpu:1's successor ran before cpu:0's queued op, on "
                    + successorBeforeQueued.get());
            assertNotNull(successor.get(), "the successor ran");
        }
    }

    @Test
    @Disabled("known bug, families are opt-in and off by default: in a clean-clone CI run on 2026-11-27 the second "
            + "reader stayed unrun for 60 s (the barrier's bound) while cpu:0's worker held the first, so cpu:1's "
            + "parked worker was not woken for it: a lost wake-up in WorkerGroup.Family's spinner accounting. "
            + "Re-enable with the fix")
    void opsReleasedTogetherForAnotherGroupStillRunInParallel() throws Exception {
        try (Engine e = engine(true)) {
            workerOf(e, 1);
            VarHandle v = e.newVariable("v");
            CountDownLatch open = new CountDownLatch(1);
            gate(e, v, open);
            CyclicBarrier both = new CyclicBarrier(2);
            for (int r = 0; r < 2; r++) {
                // One runs next on cpu:0's worker, the other must reach cpu:1's, or the barrier times out.
                e.pushSync(ctx -> both.await(BOUND.toSeconds(), TimeUnit.SECONDS), Context.cpu(1), List.of(v),
                        List.of(e.newVariable()), FnProperty.NORMAL, 0, "reader-" + r);
            }
            open.countDown();
            e.waitForAll(BOUND); // throws if the barrier broke
        }
    }
}
