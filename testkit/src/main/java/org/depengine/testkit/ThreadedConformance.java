package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.Test;

/** Rules that only engines with worker threads can show: overlap, exclusion, thread hygiene. */
public abstract class ThreadedConformance extends EngineTestBase {

    @Test
    void readersOfOneVersionOverlapAndAWriterExcludesThem() {
        VarHandle v = engine.newVariable("shared");
        AtomicInteger activeReaders = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger writerActive = new AtomicInteger();
        for (int round = 0; round < 20; round++) {
            CyclicBarrier bothReading = new CyclicBarrier(2);
            for (int r = 0; r < 2; r++) {
                engine.pushSync(ctx -> {
                    activeReaders.incrementAndGet();
                    if (writerActive.get() != 0) {
                        violations.incrementAndGet();
                    }
                    // Both readers must be running at once to pass this barrier; a broken engine times out.
                    bothReading.await(30, TimeUnit.SECONDS);
                    activeReaders.decrementAndGet();
                }, Context.cpu(), List.of(v), List.of(engine.newVariable()), FnProperty.NORMAL, 0, "reader-" + round + "-" + r);
            }
            engine.pushSync(ctx -> {
                writerActive.incrementAndGet();
                if (activeReaders.get() != 0) {
                    violations.incrementAndGet();
                }
                writerActive.decrementAndGet();
            }, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "writer-" + round);
        }
        engine.waitForAll(); // throws if a barrier broke
        assertEquals(0, violations.get(), "a writer overlapped a reader");
        assertEquals(20, v.version());
    }

    @Test
    void independentOpsRunOnEngineThreads() {
        AtomicReference<String> thread = new AtomicReference<>();
        VarHandle v = engine.newVariable();
        engine.pushSync(ctx -> thread.set(Thread.currentThread().getName()), Context.cpu(), List.of(), List.of(v));
        engine.waitForVar(v);
        assertTrue(thread.get().startsWith("depengine-" + engineName() + "-"), thread.get());
        assertNotEquals(Thread.currentThread().getName(), thread.get());
    }

    @Test
    void anErrorDoesNotKillItsWorker() {
        Map<String, String> one = new HashMap<>(settings());
        one.putAll(singleWorkerSettings());
        try (Engine e = Engine.create(engineName(), EngineConfig.of(one))) {
            AtomicReference<Thread> before = new AtomicReference<>();
            AtomicReference<Thread> after = new AtomicReference<>();
            VarHandle v = e.newVariable();
            e.pushSync(ctx -> {
                before.set(Thread.currentThread());
                throw new StackOverflowError("simulated");
            }, Context.cpu(), List.of(), List.of(v));
            VarHandle w = e.newVariable();
            e.pushSync(ctx -> after.set(Thread.currentThread()), Context.cpu(), List.of(), List.of(w));
            e.waitForVar(w);
            assertEquals(before.get(), after.get(), "the single worker was replaced or died");
            assertTrue(after.get().isAlive());
        }
    }

    /** Settings that give the engine one worker for plain CPU ops; by default the enclosing setup's. */
    protected Map<String, String> singleWorkerSettings() {
        return setup().singleWorkerSettings();
    }

    @Test
    void anInterruptSetByAnOpDoesNotLeakIntoTheNextOpsOnItsWorker() {
        // Like a thread pool, a worker must not hand an op's interrupt status to the ops it runs next
        // (an op that waits on a latch or a queue would fail at once), nor spin in its idle loop.
        VarHandle v = engine.newVariable("v");
        List<String> leaks = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            engine.pushSync(ctx -> {
                ran.incrementAndGet();
                Thread.currentThread().interrupt();
            }, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "interrupter-" + i);
            // Released by the interrupter on its own thread, so it runs next on that worker.
            String name = "successor-" + i;
            engine.pushSync(ctx -> {
                ran.incrementAndGet();
                if (Thread.currentThread().isInterrupted()) {
                    leaks.add(name + " on " + Thread.currentThread().getName());
                }
            }, Context.cpu(), List.of(v), List.of(engine.newVariable()), FnProperty.NORMAL, 0, name);
        }
        engine.waitForAll(BOUND);
        assertEquals(40, ran.get());
        assertEquals(List.of(), leaks, "ops started with the interrupt status an earlier op had set on their worker");
    }

    @Test
    void aChainOfDependentOpsKeepsOrderAcrossManyLinks() {
        VarHandle v = engine.newVariable("chain");
        long[] counter = {0};
        for (int i = 0; i < 50_000; i++) {
            engine.pushSync(ctx -> counter[0]++, Context.cpu(), List.of(), List.of(v));
        }
        engine.waitForVar(v);
        assertEquals(50_000, counter[0]);
        assertEquals(50_000, v.version());
    }

    @Test
    void aReleasedSuccessorRunsNextOnTheSameWorker() throws Exception {
        VarHandle v = engine.newVariable("chain");
        Held gate = pushHeld(List.of(), List.of(v), "gate");
        int links = 1000;
        String[] threads = new String[links];
        for (int i = 0; i < links; i++) {
            int k = i;
            engine.pushSync(ctx -> threads[k] = Thread.currentThread().getName(), Context.cpu(), List.of(), List.of(v));
        }
        gate.complete(); // from here each link is released by the one before it, on the thread that ran it
        engine.waitForVar(v);
        int switches = 0;
        for (int i = 1; i < links; i++) {
            if (!threads[i].equals(threads[i - 1])) {
                switches++;
            }
        }
        // The worker yields to its queue every 128 local runs; otherwise the chain stays on one thread.
        assertTrue(switches <= links / 128 + 1, "the chain moved between threads " + switches + " times");
    }

    @Test
    void aChainReleasedOnAWorkerPaysNoWakeUpPerLink() throws Exception {
        VarHandle v = engine.newVariable("chain");
        CountDownLatch open = new CountDownLatch(1);
        // A sync gate: it ends on a worker, so every link is released on the worker that ran the one before.
        engine.pushSync(ctx -> open.await(BOUND.toSeconds(), TimeUnit.SECONDS), Context.cpu(), List.of(), List.of(v),
                FnProperty.NORMAL, 0, "gate");
        int links = 1000;
        for (int i = 0; i < links; i++) {
            engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "link-" + i);
        }
        EngineDiagnostics before = engine.diagnostics();
        open.countDown();
        engine.waitForVar(v);
        EngineDiagnostics after = engine.diagnostics();
        long handOffs = after.counter("handOffs") - before.counter("handOffs");
        long wakeUps = after.counter("wakeUps") - before.counter("wakeUps");
        // Every link but those where the worker yields to its queue (every 128 local runs) is handed off.
        assertTrue(handOffs >= links - links / 128 - 1, "links run next by the releasing worker: " + handOffs);
        assertTrue(wakeUps <= links / 128 + 1, "wake-ups paid by a chain of " + links + ": " + wakeUps);
    }

    @Test
    void opsReleasedTogetherByAWorkerStillSpreadOverTheWorkers() {
        VarHandle v = engine.newVariable("gate");
        for (int round = 0; round < 20; round++) {
            CyclicBarrier both = new CyclicBarrier(2);
            engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "gate-" + round);
            for (int r = 0; r < 2; r++) {
                // Released together on the gate's worker: one runs next there, the other must reach
                // another worker, or the barrier times out.
                engine.pushSync(ctx -> both.await(BOUND.toSeconds(), TimeUnit.SECONDS), Context.cpu(), List.of(v),
                        List.of(engine.newVariable()), FnProperty.NORMAL, 0, "reader-" + round + "-" + r);
            }
        }
        engine.waitForAll(BOUND); // throws if a barrier broke
    }

    @Test
    void aChainRunOnOneWorkerLetsQueuedOpsInWithinItsBudget() throws Exception {
        Map<String, String> one = new HashMap<>(settings());
        one.putAll(singleWorkerSettings());
        try (Engine e = Engine.create(engineName(), EngineConfig.of(one))) {
            VarHandle v = e.newVariable("chain");
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch open = new CountDownLatch(1);
            e.pushSync(ctx -> {
                started.countDown();
                open.await(BOUND.toSeconds(), TimeUnit.SECONDS);
            }, Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, "gate");
            List<String> order = Collections.synchronizedList(new ArrayList<>());
            int links = 400;
            for (int i = 0; i < links; i++) {
                String tag = "link-" + i;
                e.pushSync(ctx -> order.add(tag), Context.cpu(), List.of(), List.of(v), FnProperty.NORMAL, 0, tag);
            }
            assertTrue(started.await(BOUND.toSeconds(), TimeUnit.SECONDS));
            // Ready now, so queued behind the busy single worker while the chain waits on the gate.
            e.pushSync(ctx -> order.add("other"), Context.cpu(), List.of(), List.of(e.newVariable()), FnProperty.NORMAL, 0,
                    "other");
            open.countDown();
            e.waitForAll(BOUND);
            assertEquals(links + 1, order.size());
            // The worker runs at most 128 released links in a row, then takes from its queue.
            assertTrue(order.indexOf("other") <= 128, "the queued op waited behind " + order.indexOf("other") + " links");
        }
    }
}
