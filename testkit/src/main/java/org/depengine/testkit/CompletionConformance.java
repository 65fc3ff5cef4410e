package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;

/**
 * The non-blocking waits ({@code whenReady}, {@code whenAllDone}) and the op builder: the futures
 * cover what the blocking waits cover, fail as they throw, report a failure once together with them,
 * are completed off the engine's threads, and work from inside an op.
 */
public abstract class CompletionConformance extends EngineTestBase {

    private static Throwable failureOf(CompletableFuture<Void> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        return e.getCause();
    }

    private static void awaitNormally(CompletableFuture<?> f) throws Exception {
        f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void whenReadyCompletesOnlyAfterThePendingWriter() throws Exception {
        VarHandle v = engine.newVariable("v");
        long[] value = {0};
        Held writer = pushHeld(List.of(), List.of(v), "writer");
        CompletableFuture<Void> ready = engine.whenReady(v);
        CompletableFuture<Long> seen = ready.thenApply(x -> value[0]);
        assertFalse(ready.isDone(), "the writer has not completed");
        value[0] = 42;
        writer.complete();
        assertEquals(42L, seen.get(BOUND.toMillis(), TimeUnit.MILLISECONDS), "the writer's effects are visible");
    }

    @Test
    void whenReadyIsNotDelayedByRunningReads() throws Exception {
        VarHandle v = engine.newVariable("v");
        Held reader = pushHeld(List.of(v), List.of(), "reader");
        awaitNormally(engine.whenReady(v)); // would time out if it waited for the reader
        reader.complete();
    }

    @Test
    void whenReadyFailsWithTheWaitsExceptionAndReportsItOnce() throws Exception {
        VarHandle v = engine.newVariable("v");
        IllegalStateException boom = new IllegalStateException("boom");
        engine.op("loader").writes(v).run(ctx -> {
            throw boom;
        });
        Throwable cause = failureOf(engine.whenReady(v));
        EngineException e = assertInstanceOf(EngineException.class, cause);
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().contains("'loader'"), e.getMessage());
        assertDoesNotThrow(() -> engine.waitForVar(v), "reported once: the future took it");
        assertDoesNotThrow(() -> engine.waitForAll(), "reported once: not again by waitForAll");
        awaitNormally(engine.whenReady(v));
    }

    @Test
    void aFailureTheWaitReportedIsNotReportedAgainByAFuture() throws Exception {
        VarHandle v = engine.newVariable("v");
        engine.op("bad").writes(v).run(ctx -> {
            throw new IllegalArgumentException("bad");
        });
        assertThrows(EngineException.class, () -> engine.waitForVar(v));
        awaitNormally(engine.whenReady(v));
        awaitNormally(engine.whenAllDone());
    }

    @Test
    void dependentStagesDoNotRunOnEngineThreads() throws Exception {
        VarHandle v = engine.newVariable("v");
        AtomicReference<Thread> opThread = new AtomicReference<>();
        Held gate = pushHeld(List.of(), List.of(v), "gate");
        VarHandle out = engine.newVariable("out");
        // In the background: the naive engine's push returns only once its op ran.
        Thread pusher = pushInBackground("after gate",
                () -> engine.op("after gate").reads(v).writes(out).run(ctx -> opThread.set(Thread.currentThread())));
        CompletableFuture<Thread> stageThread = engine.whenReady(out).thenApply(x -> Thread.currentThread());
        CompletableFuture<Thread> allThread = engine.whenAllDone().thenApply(x -> Thread.currentThread());
        gate.complete();
        joinBounded(pusher);
        for (CompletableFuture<Thread> f : List.of(stageThread, allThread)) {
            Thread t = f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(t != opThread.get(), "a dependent stage ran on the op's thread " + t.getName());
            assertTrue(t instanceof ForkJoinWorkerThread && ((ForkJoinWorkerThread) t).getPool() == ForkJoinPool.commonPool(),
                    "completed on the common pool as documented, not on " + t.getName());
        }
    }

    @Test
    void theFuturesWorkFromInsideAnOp() throws Exception {
        VarHandle x = engine.newVariable("x");
        VarHandle y = engine.newVariable("y");
        long[] value = {0};
        AtomicReference<CompletableFuture<Long>> own = new AtomicReference<>();
        AtomicReference<CompletableFuture<Void>> all = new AtomicReference<>();
        engine.op("inner").writes(x).run(ctx -> {
            // Its own output: ready once this op has completed; blocking here would deadlock.
            own.set(engine.whenReady(x).thenApply(n -> value[0]));
            all.set(engine.whenAllDone());
            value[0] = 7;
        });
        engine.op("unrelated").writes(y).run(ctx -> { });
        engine.waitForAll();
        assertEquals(7L, own.get().get(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        awaitNormally(all.get());
    }

    @Test
    void whenAllDoneCoversEarlierOpsOnlyAndReportsTheFirstFailureOnce() throws Exception {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        RuntimeException one = new RuntimeException("one");
        RuntimeException two = new RuntimeException("two");
        engine.op("one").writes(a).run(ctx -> {
            throw one;
        });
        engine.op("two").writes(b).run(ctx -> {
            throw two;
        });
        EngineException e = assertInstanceOf(EngineException.class, failureOf(engine.whenAllDone()));
        // The ops are independent: either may fail first; the other is suppressed in it.
        Throwable other = e.getCause() == one ? two : one;
        assertTrue(e.getCause() == one || e.getCause() == two, "the cause is a failure itself: " + e.getCause());
        assertEquals(List.of(other), List.of(e.getSuppressed()), "the other failure is suppressed in the first");
        assertDoesNotThrow(() -> engine.waitForVar(a), "cleared everywhere");
        assertDoesNotThrow(() -> engine.waitForAll(), "reported once");

        VarHandle c = engine.newVariable("c");
        CompletableFuture<Void> none = engine.whenAllDone();
        Held later = pushHeld(List.of(), List.of(c), "pushed after");
        awaitNormally(none); // would time out if it waited for the later op
        later.complete();
    }

    @Test
    void theBuilderPushesANamedOpInPushOrder() {
        VarHandle h = engine.newVariable("h");
        StringBuilder order = new StringBuilder();
        engine.op("fc1 forward").writes(h).on(opContext()).priority(2).run(ctx -> order.append('a'));
        engine.op("fc1 backward").reads(List.of()).writes(List.of(h)).property(FnProperty.NORMAL)
                .runAsync((ctx, done) -> {
                    order.append('b');
                    done.complete();
                });
        engine.op("fc1 update").writes(h).run(ctx -> {
            throw new IllegalStateException("nan");
        });
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(h));
        assertTrue(e.getMessage().contains("'fc1 update'"), "the op is named in the error: " + e.getMessage());
        assertEquals("ab", order.toString());
    }

    @Test
    void theBuilderRefusesWhatThePushRefuses() {
        VarHandle v = engine.newVariable("v");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> engine.op("both").reads(v).writes(v).run(ctx -> { }));
        assertTrue(e.getMessage().contains("v"), e.getMessage());
        assertThrows(NullPointerException.class, () -> engine.op("null fn").run(null));
    }
}
