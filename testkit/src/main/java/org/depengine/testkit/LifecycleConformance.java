package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.junit.jupiter.api.Test;

/** Shutdown, close, listeners. */
public abstract class LifecycleConformance extends EngineTestBase {

    @Test
    void notifyShutdownSkipsEverythingButDeletions() {
        VarHandle v = engine.newVariable("v");
        AtomicBoolean ran = new AtomicBoolean();
        AtomicBoolean deleted = new AtomicBoolean();
        engine.notifyShutdown();
        engine.pushSync(ctx -> ran.set(true), opContext(), List.of(), List.of(v));
        engine.deleteVariable(ctx -> deleted.set(true), opContext(), v);
        engine.waitForAll();
        assertFalse(ran.get(), "ops are skipped after notifyShutdown");
        assertTrue(deleted.get(), "deletions still run");
    }

    @Test
    void closeWaitsForPendingAsyncWork() throws Exception {
        VarHandle v = engine.newVariable("v");
        Held op = pushHeld(List.of(), List.of(v), "async");
        AtomicBoolean finished = new AtomicBoolean();
        // The callback comes only once close() has begun (isClosed turns true as it starts), so close
        // must wait for it: an engine that returned from close at once would fail the check below.
        Thread completer = new Thread(() -> {
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (!engine.isClosed() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            finished.set(true);
            op.callback().complete();
        }, "completer");
        completer.start();
        engine.close();
        assertTrue(finished.get(), "close returned before the pushed op completed");
        assertEquals(1, v.version());
        completer.join(BOUND.toMillis());
        op.joinPusher();
        assertThrows(IllegalStateException.class, () -> engine.pushSync(ctx -> { }, opContext(), List.of(), List.of()));
    }

    @Test
    void listenersSeeEveryOpsLifeInOrder() throws Exception {
        AtomicInteger pushed = new AtomicInteger();
        AtomicInteger ready = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        Map<Long, Integer> stage = new ConcurrentHashMap<>();
        OpListener l = new OpListener() {
            private void step(OpInfo op, int from, int to) {
                Integer was = stage.put(op.id(), to);
                if ((was == null ? 0 : was) != from) {
                    outOfOrder.incrementAndGet();
                }
            }

            @Override
            public void pushed(OpInfo op, long t) {
                pushed.incrementAndGet();
                step(op, 0, 1);
            }

            @Override
            public void ready(OpInfo op, long t) {
                ready.incrementAndGet();
                step(op, 1, 2);
            }

            @Override
            public void started(OpInfo op, long t) {
                started.incrementAndGet();
                step(op, 2, 3);
            }

            @Override
            public void finished(OpInfo op, long t) {
                finished.incrementAndGet();
                step(op, 3, 4);
            }

            @Override
            public void released(OpInfo producer, OpInfo consumer) {
                released.incrementAndGet();
            }
        };
        OpListener throwing = new OpListener() {
            @Override
            public void started(OpInfo op, long t) {
                throw new IllegalStateException("listener bug");
            }
        };
        engine.addListener(l);
        engine.addListener(throwing);
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        // On an engine with threads of its own, w is held until r1 and r2 are queued behind it, so its
        // completion releases both: two 'released' events. The naive engine runs each push to its end,
        // so there a completion never releases a later push: none.
        Held w = threaded() ? pushHeld(List.of(), List.of(a), "w") : null;
        if (w == null) {
            engine.pushSync(ctx -> { }, opContext(), List.of(), List.of(a), FnProperty.NORMAL, 0, "w");
        }
        engine.pushSync(ctx -> { }, opContext(), List.of(a), List.of(b), FnProperty.NORMAL, 0, "r1");
        engine.pushSync(ctx -> { }, opContext(), List.of(a), List.of(), FnProperty.NORMAL, 0, "r2");
        if (w != null) {
            w.complete();
        }
        engine.waitForAll();
        engine.removeListener(l);
        engine.removeListener(throwing);
        engine.pushSync(ctx -> { }, opContext(), List.of(), List.of(a));
        engine.waitForAll();
        assertEquals(3, pushed.get());
        assertEquals(3, ready.get());
        assertEquals(3, started.get());
        assertEquals(3, finished.get());
        assertEquals(0, outOfOrder.get());
        assertEquals(threaded() ? 2 : 0, released.get(), "w's completion releases r1 and r2 (threaded engines only)");
        assertEquals(2, a.version());
    }

    @Test
    void listenersSeeAnOpsNameVariablesAndWhetherItWasNamed() {
        Map<String, String> seen = new ConcurrentHashMap<>();
        OpListener l = new OpListener() {
            @Override
            public void finished(OpInfo op, long t) {
                String key = op.named() ? op.name() : "unnamed";
                String generated = "op#" + op.id();
                seen.put(key, op.named() + " " + op.name().equals(generated) + " " + names(op.reads()) + " -> "
                        + names(op.writes()) + " " + readOnly(op.reads()) + " " + readOnly(op.writes()));
            }
        };
        engine.addListener(l);
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        engine.pushSync(ctx -> { }, opContext(), List.of(a), List.of(b), FnProperty.NORMAL, 0, "named");
        engine.pushSync(ctx -> { }, opContext(), List.of(b), List.of(a));
        engine.waitForAll();
        engine.removeListener(l);
        assertEquals("true false [a] -> [b] read-only read-only", seen.get("named"));
        assertEquals("false true [b] -> [a] read-only read-only", seen.get("unnamed"),
                "an unnamed op's name is \"op#\" + its id, and named() says it was generated");
    }

    private static String names(List<VarHandle> vars) {
        return vars.stream().map(VarHandle::name).toList().toString();
    }

    private static String readOnly(List<VarHandle> vars) {
        try {
            vars.add(null);
            return "writable";
        } catch (UnsupportedOperationException expected) {
            return "read-only";
        }
    }

    @Test
    void closeRunsEveryPushedOpBeforeItReturns() throws Exception {
        ExecutorService completer = Executors.newSingleThreadExecutor(r -> new Thread(r, "foreign-completer"));
        try {
            VarHandle[] vars = new VarHandle[8];
            for (int i = 0; i < vars.length; i++) {
                vars[i] = engine.newVariable("v" + i);
            }
            List<Context> contexts = contexts();
            AtomicInteger ran = new AtomicInteger();
            AtomicBoolean deleted = new AtomicBoolean();
            int pushed = 2000;
            for (int i = 0; i < pushed; i++) {
                VarHandle w = vars[i % vars.length];
                VarHandle r = vars[(i + 3) % vars.length];
                Context c = contexts.get(i % contexts.size());
                if (i % 5 == 0) {
                    // Completed later, on another thread: close must wait for the callback, not the function.
                    engine.pushAsync((ctx, done) -> completer.execute(() -> {
                        ran.incrementAndGet();
                        done.complete();
                    }), c, List.of(r), List.of(w), FnProperty.ASYNC, 0, "async-" + i);
                } else {
                    engine.pushSync(ctx -> ran.incrementAndGet(), c, List.of(r), List.of(w), FnProperty.NORMAL, 0, "sync-" + i);
                }
            }
            engine.deleteVariable(ctx -> deleted.set(true), opContext(), vars[0]);
            engine.close();
            assertEquals(pushed, ran.get(), "close returned before every pushed op had run");
            assertTrue(deleted.get(), "close returned before the pending deletion ran");
            for (int i = 1; i < vars.length; i++) {
                assertEquals(pushed / vars.length, vars[i].version(), "writes of v" + i);
            }
            assertTrue(engine.isClosed());
        } finally {
            completer.shutdownNow();
            assertTrue(completer.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void closeFromInsideAnOpIsRefusedWithoutDeadlockAndTheEngineKeepsWorking() {
        VarHandle v = engine.newVariable("v");
        AtomicReference<Throwable> fromSync = new AtomicReference<>();
        AtomicReference<Throwable> fromAsync = new AtomicReference<>();
        engine.pushSync(ctx -> {
            try {
                engine.close();
            } catch (Throwable t) {
                fromSync.set(t);
            }
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "closer");
        engine.pushAsync((ctx, done) -> {
            try {
                engine.close();
            } catch (Throwable t) {
                fromAsync.set(t);
            }
            done.complete();
        }, Context.cpu(), List.of(), List.of(v), FnProperty.ASYNC, 0, "async-closer");
        engine.waitForVar(v, BOUND);
        for (AtomicReference<Throwable> thrown : List.of(fromSync, fromAsync)) {
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, thrown.get(), "close() inside an op is refused");
            assertTrue(e.getMessage().contains("close()") && e.getMessage().contains("inside op"), e.getMessage());
        }
        assertTrue(fromSync.get().getMessage().contains("'closer'"), fromSync.get().getMessage());
        assertTrue(fromAsync.get().getMessage().contains("'async-closer'"), fromAsync.get().getMessage());
        assertFalse(engine.isClosed(), "a refused close did not half-close the engine");
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 50; i++) {
            engine.pushSync(ctx -> ran.incrementAndGet(), opContext(), List.of(), List.of(v));
        }
        engine.close();
        assertEquals(50, ran.get());
        assertEquals(52, v.version());
    }

    @Test
    void pushesRacingCloseEitherRunBeforeCloseReturnsOrAreRefused() throws Exception {
        int threads = 4;
        AtomicInteger attempted = new AtomicInteger();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger acceptedAfterARefusal = new AtomicInteger();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        VarHandle shared = engine.newVariable("shared");
        List<Context> contexts = contexts();
        CountDownLatch warmedUp = new CountDownLatch(threads);
        List<Thread> pushers = new ArrayList<>();
        for (int p = 0; p < threads; p++) {
            int me = p;
            Thread t = new Thread(() -> {
                VarHandle own = engine.newVariable("own-" + me);
                int refusals = 0;
                long deadline = System.nanoTime() + BOUND.toNanos();
                try {
                    for (int i = 0; refusals < 20; i++) {
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("pushes were still accepted " + BOUND + " after the test began");
                        }
                        if (i >= 2000) {
                            // Enough racing: do not pile up work while close() drains; just go on once it began.
                            while (!engine.isClosed() && System.nanoTime() < deadline) {
                                Thread.yield();
                            }
                        }
                        attempted.incrementAndGet();
                        try {
                            Context c = contexts.get(i % contexts.size());
                            if (i % 3 == 0) {
                                engine.pushAsync((ctx, done) -> {
                                    ran.incrementAndGet();
                                    done.complete();
                                }, c, List.of(shared), List.of(own), FnProperty.ASYNC, 0, "async-" + me + "-" + i);
                            } else if (i % 3 == 1) {
                                engine.pushSync(ctx -> ran.incrementAndGet(), c, List.of(), List.of(shared), FnProperty.NORMAL, 0,
                                        "writer-" + me + "-" + i);
                            } else {
                                engine.pushSync(ctx -> ran.incrementAndGet(), c, List.of(shared), List.of(own), FnProperty.NORMAL, 0,
                                        "reader-" + me + "-" + i);
                            }
                            accepted.incrementAndGet();
                            if (refusals > 0) {
                                acceptedAfterARefusal.incrementAndGet();
                            }
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().contains("closed")) {
                                throw e;
                            }
                            refused.incrementAndGet();
                            refusals++;
                        }
                        if (i == 200) {
                            warmedUp.countDown();
                        }
                    }
                } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                    warmedUp.countDown();
                }
            }, "racing-pusher-" + p);
            pushers.add(t);
            t.start();
        }
        assertTrue(warmedUp.await(BOUND.toSeconds(), TimeUnit.SECONDS), "the pushers never got going");
        engine.close();
        int ranWhenCloseReturned = ran.get();
        for (Thread t : pushers) {
            joinBounded(t);
        }
        assertEquals(null, unexpected.get(), "a push failed otherwise than by being refused");
        assertEquals(attempted.get(), accepted.get() + refused.get(), "every push either ran or was refused");
        assertEquals(accepted.get(), ranWhenCloseReturned, "an accepted push had not run when close() returned");
        assertEquals(accepted.get(), ran.get(), "an op ran although its push was refused");
        assertEquals(0, acceptedAfterARefusal.get(), "a push was accepted after one from the same thread was refused");
        assertEquals(threads * 20, refused.get());
    }

    /** The live threads whose name contains "depengine". */
    private static Set<Thread> liveEngineThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().contains("depengine"))
                .collect(Collectors.toSet());
    }

    @Test
    void creatingAndClosing200EnginesLeavesNoThreadBehind() throws Exception {
        Set<Thread> before = liveEngineThreads();
        Set<String> ranOn = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 200; i++) {
            try (Engine e = newEngine()) {
                VarHandle v = e.newVariable();
                for (Context c : contexts()) {
                    e.pushSync(ctx -> ranOn.add(Thread.currentThread().getName()), c, List.of(), List.of(v));
                }
                e.pushSync(ctx -> { }, Context.cpu(1), List.of(v), List.of());
                e.pushSync(ctx -> { }, Context.cpu(), List.of(v), List.of(), FnProperty.CPU_PRIORITIZED, 1, null);
                e.pushSync(ctx -> { }, Context.cpu(), List.of(v), List.of(), FnProperty.COPY_FROM_DEVICE, 0, null);
                e.pushAsync((ctx, done) -> done.complete(), Context.cpu(), List.of(), List.of(v), FnProperty.ASYNC, 0, null);
            }
        }
        engine.close();
        Set<Thread> left = liveEngineThreads();
        left.removeAll(before);
        long deadline = System.nanoTime() + BOUND.toNanos();
        for (Thread t : left) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L)); // close() should have joined them already
        }
        List<String> alive = left.stream().filter(Thread::isAlive).map(Thread::getName).sorted().collect(Collectors.toList());
        assertEquals(List.of(), alive, "engine threads still running after close()");
        if (threaded()) {
            assertTrue(ranOn.stream().allMatch(n -> n.contains("depengine")), "ops ran on engine threads: " + ranOn);
        }
    }
}
