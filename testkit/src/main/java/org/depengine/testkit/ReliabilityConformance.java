package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Nothing a listener, a nested push or an odd input does may hang the engine: a listener that throws
 * an {@link Error} is contained; ops pushed from inside ops run with bounded stack depth; a push that
 * throws leaves no pending op behind; a close in progress does not block listener changes;
 * {@code notifyShutdown} honours the {@link FnProperty#DELETE_VAR} property. Waits and closes are
 * bounded, so a broken engine fails here instead of hanging the build.
 */
public abstract class ReliabilityConformance extends EngineTestBase {
    private static final Duration SHORT = Duration.ofSeconds(20);

    /** Closes the engine on a helper thread, failing if it does not return within the bound. */
    private void closeBounded() throws InterruptedException {
        Thread closer = new Thread(engine::close, "bounded-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(SHORT.toMillis());
        assertFalse(closer.isAlive(), "close() did not return");
    }

    // ---- nested pushes ----------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {1_000, 20_000})
    void aLongChainPushedFromInsideAnOpRunsInOrderWithBoundedStack(int n) throws InterruptedException {
        VarHandle v = engine.newVariable("v");
        int[] next = new int[1];
        AtomicInteger outOfOrder = new AtomicInteger();
        CountDownLatch allPushed = new CountDownLatch(1);
        // The outer op writes v too, so the whole chain waits for it and is released link by link
        // when it returns: each link's completion releases the next.
        engine.pushSync(ctx -> {
            for (int i = 0; i < n; i++) {
                int expected = i;
                engine.pushSync(c -> {
                    if (next[0] != expected) {
                        outOfOrder.incrementAndGet();
                    }
                    next[0]++;
                }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "link" + i);
            }
            allPushed.countDown();
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "outer");
        // waitForAll waits for the ops pushed before it: make sure the nested pushes were
        assertTrue(allPushed.await(SHORT.toMillis(), TimeUnit.MILLISECONDS), "the outer op pushed its chain");
        engine.waitForAll(SHORT);
        assertEquals(n, next[0], "every nested op ran");
        assertEquals(0, outOfOrder.get(), "nested ops ran in push order");
        assertEquals(n + 1, v.version());
        assertEquals(0, engine.diagnostics().pendingOps(), "no op left pending");
        closeBounded();
    }

    // ---- listeners that throw Errors ----------------------------------------------------------------

    static List<Arguments> callbacksAndErrors() {
        List<Arguments> out = new java.util.ArrayList<>();
        for (String cb : List.of("pushed", "ready", "started", "finished", "released")) {
            out.add(Arguments.of(cb, (Supplier<Error>) () -> new AssertionError("listener assertion in " + cb)));
            out.add(Arguments.of(cb, (Supplier<Error>) () -> new StackOverflowError("listener overflow in " + cb)));
        }
        return out;
    }

    /** Throws {@code error} from the one callback named. */
    private static final class ThrowingListener implements OpListener {
        final String callback;
        final Supplier<Error> error;
        final AtomicInteger throwsCount = new AtomicInteger();

        ThrowingListener(String callback, Supplier<Error> error) {
            this.callback = callback;
            this.error = error;
        }

        private void maybeThrow(String cb) {
            if (cb.equals(callback)) {
                throwsCount.incrementAndGet();
                throw error.get();
            }
        }

        @Override
        public void pushed(OpInfo op, long t) {
            maybeThrow("pushed");
        }

        @Override
        public void ready(OpInfo op, long t) {
            maybeThrow("ready");
        }

        @Override
        public void started(OpInfo op, long t) {
            maybeThrow("started");
        }

        @Override
        public void finished(OpInfo op, long t) {
            maybeThrow("finished");
        }

        @Override
        public void released(OpInfo producer, OpInfo consumer) {
            maybeThrow("released");
        }

        @Override
        public String toString() {
            return "ThrowingListener(" + callback + ")";
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("callbacksAndErrors")
    void aListenerThrowingAnErrorIsContainedAndDetached(String callback, Supplier<Error> error) throws Exception {
        ThrowingListener bad = new ThrowingListener(callback, error);
        AtomicInteger finished = new AtomicInteger();
        engine.addListener(bad);
        engine.addListener(new OpListener() {
            @Override
            public void finished(OpInfo op, long t) {
                finished.incrementAndGet();
            }
        });
        int ops = 200;
        VarHandle chain = engine.newVariable("chain");
        int[] count = new int[1];
        CountDownLatch allPushed = new CountDownLatch(1);
        Thread pusher = new Thread(() -> {
            // An outer op pushes a chain from inside: every link waits for the op before it, so each is
            // released by its predecessor on every engine (the naive one included).
            engine.pushSync(outer -> {
                for (int i = 0; i < ops; i++) {
                    engine.pushSync(ctx -> count[0]++, opContext(), List.of(), List.of(chain), FnProperty.NORMAL, 0, "op" + i);
                }
                allPushed.countDown();
            }, opContext(), List.of(), List.of(chain), FnProperty.NORMAL, 0, "outer");
        }, "pusher");
        pusher.start();
        joinBounded(pusher);
        assertTrue(allPushed.await(SHORT.toMillis(), TimeUnit.MILLISECONDS), "the outer op pushed its chain");
        try {
            engine.waitForAll(SHORT);
        } catch (WaitTimeoutException e) {
            throw new AssertionError("ops hang behind a listener that threw from " + callback + ": " + e.getMessage(), e);
        }
        assertEquals(ops, count[0], "every op ran although a listener threw from " + callback);
        assertEquals(ops + 1, chain.version());
        assertEquals(0, engine.diagnostics().pendingOps());
        assertEquals(ops + 1, finished.get(), "the other listener saw every op finish");
        assertTrue(bad.throwsCount.get() > 0, "the listener was called");
        assertTrue(bad.throwsCount.get() < ops / 4, "a listener that keeps throwing is detached; it threw "
                + bad.throwsCount.get() + " times for " + ops + " ops");
        closeBounded();
    }

    // ---- pushes that throw leave no trace -----------------------------------------------------------

    @Test
    void anOpOnAHugeCpuIdRunsAndLeavesNothingPending() throws InterruptedException {
        VarHandle v = engine.newVariable("v");
        AtomicBoolean ran = new AtomicBoolean();
        Thread pusher = new Thread(() -> engine.pushSync(ctx -> ran.set(true), Context.cpu(2_000_000_000),
                List.of(), List.of(v)), "pusher");
        AtomicBoolean pushFailed = new AtomicBoolean();
        pusher.setUncaughtExceptionHandler((t, e) -> pushFailed.set(true));
        pusher.start();
        joinBounded(pusher);
        try {
            engine.waitForAll(SHORT);
        } catch (WaitTimeoutException e) {
            throw new AssertionError("a push to cpu:2000000000 left a pending op behind: " + e.getMessage(), e);
        }
        assertFalse(pushFailed.get(), "the push to cpu:2000000000 threw");
        assertTrue(ran.get(), "the op on cpu:2000000000 ran");
        closeBounded();
    }

    // ---- close and listener changes -----------------------------------------------------------------

    @Test
    void listenersCanBeAddedAndRemovedWhileACloseWaits() throws Exception {
        VarHandle v = engine.newVariable("v");
        Held held = pushHeld(List.of(), List.of(v), "held");
        Thread closer = new Thread(engine::close, "closer");
        closer.setDaemon(true);
        closer.start();
        awaitThread(closer, s -> s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING, "close() to wait");
        OpListener l = new OpListener() {
        };
        Thread changer = new Thread(() -> {
            engine.addListener(l);
            engine.removeListener(l);
        }, "listener-changer");
        changer.setDaemon(true);
        changer.start();
        changer.join(SHORT.toMillis());
        boolean blocked = changer.isAlive();
        held.complete();
        closer.join(SHORT.toMillis());
        assertFalse(blocked, "addListener/removeListener blocked while close() waited for pending ops");
        assertFalse(closer.isAlive(), "close() returned once the held op completed");
    }

    // ---- notifyShutdown --------------------------------------------------------------------------

    @Test
    void notifyShutdownRunsUserOpsWithTheDeleteVarProperty() {
        VarHandle v = engine.newVariable("v");
        AtomicBoolean deleteProp = new AtomicBoolean();
        AtomicBoolean normal = new AtomicBoolean();
        engine.notifyShutdown();
        engine.pushSync(ctx -> normal.set(true), opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "normal");
        engine.pushSync(ctx -> deleteProp.set(true), opContext(), List.of(), List.of(v), FnProperty.DELETE_VAR, 0,
                "userDeleteVar");
        engine.waitForAll(SHORT);
        assertFalse(normal.get(), "a NORMAL op is skipped after notifyShutdown");
        assertTrue(deleteProp.get(), "an op pushed with FnProperty.DELETE_VAR still runs after notifyShutdown");
    }

    // ---- failures reported by waitForVar are dropped -----------------------------------------------

    /** Numbers the runs of the retention test in this JVM, so that each failure's message names it alone. */
    private static final AtomicInteger RETENTION_RUNS = new AtomicInteger();

    private java.lang.ref.WeakReference<Throwable> failAndReport(String message) {
        VarHandle v = engine.newVariable("failing");
        engine.pushSync(ctx -> {
            throw new IllegalStateException(message);
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "fails");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(v, SHORT));
        return new java.lang.ref.WeakReference<>(e.getCause());
    }

    /** The messages of the failures still reachable; in a method of its own so no frame of the test holds one. */
    private static java.util.Set<String> keptMessages(List<java.lang.ref.WeakReference<Throwable>> refs) {
        java.util.Set<String> kept = new java.util.TreeSet<>();
        refs.forEach(r -> {
            Throwable t = r.get();
            if (t != null) {
                kept.add(t.getMessage());
            }
        });
        return kept;
    }

    @Test
    void failuresReportedByWaitForVarAreNotKept() {
        // Every failure is tracked. One still reachable after the bound is looked up in a live heap dump
        // (KeptFailures): if a root the dump lists (a Java frame, a JNI handle, a thread, a monitor, a class or
        // a static field) reaches it through fields and array elements, the engine or the test keeps it (its
        // last op in a field, a stale frame local, a list of failures) and the test fails, naming the path; it
        // fails too if more failures are kept than there are live threads. Otherwise it passes, logged: the
        // failure is held only by a root heap dumps do not list, HotSpot's JavaThread::_vm_result. When
        // C1-compiled code looks up a handler for an exception the slow way (the first time that exception class
        // reaches that call site of a new nmethod), HotSpot leaves the exception in that per-thread slot until
        // the thread's next runtime call that returns an object; a worker that caught the failure and then parks
        // keeps it, and Java code cannot clear the slot. Seen: the slot, on the worker that ran the kept op, was
        // its only reference (memory scan of a live JVM); a thread that catches one exception in C1 code and
        // parks keeps it on JDK 17 and 25, not under C2 alone or the interpreter. The slot holds one exception
        // per thread, hence the bound on the count.
        int run = RETENTION_RUNS.incrementAndGet();
        List<java.lang.ref.WeakReference<Throwable>> refs = new java.util.ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            refs.add(failAndReport("boom " + i + " of retention run " + run));
        }
        engine.waitForAll(SHORT);
        // The thread that completed the last op may still be inside its completion (an attached listener's
        // finished call comes after waitForAll can return, and a busy machine can hold that thread off), so
        // poll the collector until the failures are gone, within a bound.
        long deadline = System.nanoTime() + SHORT.toNanos();
        while (refs.stream().anyMatch(r -> r.get() != null) && System.nanoTime() < deadline) {
            System.gc();
        }
        java.util.Set<String> kept = keptMessages(refs);
        if (!kept.isEmpty()) {
            KeptFailures.assertHeldOnlyByUnlistedRoots(kept, "failures already reported by waitForVar");
        }
    }
}
