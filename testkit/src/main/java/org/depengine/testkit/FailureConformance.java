package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;

/**
 * The failure rules: recording, skipping, propagation, reporting once. Every op runs on the setup's
 * first context ({@code cpu:0} unless the setup names others), so a setup that lists a device first
 * checks the rules for ops that fail on that device's workers and streams.
 */
public abstract class FailureConformance extends EngineTestBase {

    private void pushThrowing(Throwable t, List<VarHandle> reads, List<VarHandle> writes, String name) {
        engine.pushSync(ctx -> {
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            throw (Error) t;
        }, opContext(), reads, writes, FnProperty.NORMAL, 0, name);
    }

    @Test
    void aThrowingOpFailsItsWritesAndTheWaitRethrowsTheSameInstance() {
        VarHandle v = engine.newVariable("v");
        IOException boom = new IOException("boom");
        pushThrowing(boom, List.of(), List.of(v), "loader"); // the push itself does not throw
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(v));
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().contains("loader"), e.getMessage());
        assertEquals(1, v.version(), "a failed write still counts");
    }

    @Test
    void aFailureIsReportedOnceThenClearedEverywhere() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        RuntimeException boom = new IllegalStateException("boom");
        pushThrowing(boom, List.of(), List.of(a, b), "two-outputs");
        assertThrows(EngineException.class, () -> engine.waitForVar(a));
        assertDoesNotThrow(() -> engine.waitForVar(a), "second wait on the same var");
        assertDoesNotThrow(() -> engine.waitForVar(b), "the failure was shared and is cleared on b too");
        assertDoesNotThrow(() -> engine.waitForAll(), "already reported");
        AtomicInteger runs = new AtomicInteger();
        engine.pushSync(ctx -> runs.incrementAndGet(), opContext(), List.of(a), List.of(engine.newVariable()));
        engine.waitForAll();
        assertEquals(1, runs.get(), "after the report, readers run again");
    }

    @Test
    void dependantsAreSkippedAndPassTheFailureOn() {
        VarHandle in = engine.newVariable("in");
        VarHandle mid = engine.newVariable("mid");
        VarHandle out = engine.newVariable("out");
        VarHandle unrelated = engine.newVariable("unrelated");
        RuntimeException boom = new RuntimeException("boom");
        AtomicInteger ran = new AtomicInteger();
        pushThrowing(boom, List.of(), List.of(in), "source");
        engine.pushSync(ctx -> ran.incrementAndGet(), opContext(), List.of(in), List.of(mid), FnProperty.NORMAL, 0, "step1");
        engine.pushSync(ctx -> ran.incrementAndGet(), opContext(), List.of(mid), List.of(out), FnProperty.NORMAL, 0, "step2");
        engine.pushSync(ctx -> ran.incrementAndGet(), opContext(), List.of(), List.of(unrelated), FnProperty.NORMAL, 0, "ok");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out));
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().contains("source"), "names the op that failed: " + e.getMessage());
        engine.waitForAll(); // the unrelated op may still be running; the failure was reported above
        assertEquals(1, ran.get(), "only the unrelated op ran");
        assertEquals(1, mid.version(), "skipped writes count in the version");
        assertDoesNotThrow(() -> engine.waitForVar(in), "reported once, cleared on every var it reached");
    }

    @Test
    void aWriteToAFailedVariableIsSkippedToo() {
        VarHandle v = engine.newVariable("v");
        RuntimeException boom = new RuntimeException("boom");
        pushThrowing(boom, List.of(), List.of(v), "first");
        AtomicBoolean ran = new AtomicBoolean();
        engine.pushSync(ctx -> ran.set(true), opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "overwrite");
        assertSame(boom, assertThrows(EngineException.class, () -> engine.waitForVar(v)).getCause());
        assertFalse(ran.get());
    }

    @Test
    void readsDoNotReceiveTheFailureOfAnOpThatReadThem() {
        VarHandle in = engine.newVariable("in");
        VarHandle out = engine.newVariable("out");
        pushThrowing(new RuntimeException("boom"), List.of(in), List.of(out), "reader-fails");
        assertThrows(EngineException.class, () -> engine.waitForVar(out));
        assertDoesNotThrow(() -> engine.waitForVar(in));
    }

    @Test
    void noSkipOpsRunDespiteAFailedInput() {
        VarHandle in = engine.newVariable("in");
        VarHandle log = engine.newVariable("log");
        RuntimeException boom = new RuntimeException("boom");
        pushThrowing(boom, List.of(), List.of(in), "source");
        AtomicBoolean cleanupRan = new AtomicBoolean();
        engine.pushSync(ctx -> cleanupRan.set(true), opContext(), List.of(in), List.of(log), FnProperty.NO_SKIP, 0, "cleanup");
        engine.waitForVar(log);
        assertTrue(cleanupRan.get());
        assertSame(boom, assertThrows(EngineException.class, () -> engine.waitForVar(in)).getCause());
    }

    @Test
    void waitForAllReportsTheFirstFailureSinceTheLastWaitForAll() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        RuntimeException first = new RuntimeException("first");
        RuntimeException second = new RuntimeException("second");
        pushThrowing(first, List.of(), List.of(a), "op-a");
        pushThrowing(second, List.of(a), List.of(b), "op-b-skipped");
        RuntimeException third = new RuntimeException("third");
        pushThrowing(third, List.of(), List.of(engine.newVariable("c")), "op-c");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForAll());
        assertTrue(e.getCause() == first || e.getCause() == third, "a failure of this batch: " + e.getCause());
        assertDoesNotThrow(() -> engine.waitForAll(), "a second waitForAll returns normally");
        assertDoesNotThrow(() -> engine.waitForVar(b), "cleared by the waitForAll report");
    }

    @Test
    void errorsAreFailuresAndTheEngineKeepsWorking() {
        VarHandle v = engine.newVariable("v");
        StackOverflowError soe = new StackOverflowError("deep");
        pushThrowing(soe, List.of(), List.of(v), "recursion");
        assertSame(soe, assertThrows(EngineException.class, () -> engine.waitForVar(v)).getCause());
        VarHandle w = engine.newVariable("w");
        engine.pushSync(ctx -> {
            throw new OutOfMemoryError("simulated");
        }, opContext(), List.of(), List.of(w), FnProperty.NORMAL, 0, "oom");
        assertTrue(assertThrows(EngineException.class, () -> engine.waitForVar(w)).getCause() instanceof OutOfMemoryError);
        // The workers are alive: many more ops still run.
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            engine.pushSync(ctx -> ran.incrementAndGet(), opContext(), List.of(), List.of(engine.newVariable()));
        }
        engine.waitForAll();
        assertEquals(100, ran.get());
    }

    @Test
    void asyncFailFromAnotherThreadIsAFailure() {
        VarHandle v = engine.newVariable("v");
        IOException boom = new IOException("remote");
        engine.pushAsync((ctx, done) -> CompletableFuture.runAsync(() -> done.fail(boom)), opContext(), List.of(), List.of(v),
                FnProperty.ASYNC, 0, "remote-call");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(v));
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().contains("remote-call"));
    }

    @Test
    void completingTwiceIsAnIllegalStateException() {
        VarHandle v = engine.newVariable("v");
        AtomicReference<CallbackOnComplete> cb = new AtomicReference<>();
        engine.pushAsync((ctx, done) -> {
            cb.set(done);
            done.complete();
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "twice");
        engine.waitForVar(v);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> cb.get().complete());
        assertTrue(e.getMessage().contains("twice") && e.getMessage().contains("already completed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> cb.get().fail(new RuntimeException("late")));
        assertThrows(NullPointerException.class, () -> cb.get().fail(null));
        assertEquals(1, v.version(), "the second completion changed nothing");
    }

    @Test
    void throwingAfterCompletingKeepsTheCompletion() {
        VarHandle v = engine.newVariable("v");
        engine.pushAsync((ctx, done) -> {
            done.complete();
            throw new RuntimeException("after");
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "complete-then-throw");
        assertDoesNotThrow(() -> engine.waitForVar(v));
        assertEquals(1, v.version());
    }

    @Test
    void theFailureSurfacesOnlyWhenSynchronised() {
        VarHandle v = engine.newVariable("v");
        assertDoesNotThrow(() -> pushThrowing(new RuntimeException("later"), List.of(), List.of(v), "lazy"));
        assertThrows(EngineException.class, () -> engine.waitForAll());
    }
}
