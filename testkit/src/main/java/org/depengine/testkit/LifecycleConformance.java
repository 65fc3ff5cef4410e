package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;
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
        engine.pushSync(ctx -> ran.set(true), Context.cpu(), List.of(), List.of(v));
        engine.deleteVariable(ctx -> deleted.set(true), Context.cpu(), v);
        engine.waitForAll();
        assertFalse(ran.get(), "ops are skipped after notifyShutdown");
        assertTrue(deleted.get(), "deletions still run");
    }

    @Test
    void closeWaitsForPendingAsyncWork() {
        VarHandle v = engine.newVariable("v");
        AtomicBoolean finished = new AtomicBoolean();
        engine.pushAsync((ctx, done) -> CompletableFuture.runAsync(() -> {
            finished.set(true);
            done.complete();
        }), Context.cpu(), List.of(), List.of(v), FnProperty.ASYNC, 0, "async");
        engine.close();
        assertTrue(finished.get(), "close returned before the pushed op completed");
        assertEquals(1, v.version());
        assertThrows(IllegalStateException.class, () -> engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of()));
    }

    @Test
    void listenersSeeEveryOpsLifeInOrder() {
        AtomicInteger pushed = new AtomicInteger();
        AtomicInteger ready = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        java.util.Map<Long, Integer> stage = new java.util.concurrent.ConcurrentHashMap<>();
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
        engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(a), FnProperty.NORMAL, 0, "w");
        engine.pushSync(ctx -> { }, Context.cpu(), List.of(a), List.of(b), FnProperty.NORMAL, 0, "r1");
        engine.pushSync(ctx -> { }, Context.cpu(), List.of(a), List.of(), FnProperty.NORMAL, 0, "r2");
        engine.waitForAll();
        engine.removeListener(l);
        engine.removeListener(throwing);
        engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(a));
        engine.waitForAll();
        assertEquals(3, pushed.get());
        assertEquals(3, ready.get());
        assertEquals(3, started.get());
        assertEquals(3, finished.get());
        assertEquals(0, outOfOrder.get());
        assertTrue(released.get() <= 2, "w releases at most r1 and r2: " + released.get());
        assertEquals(2, a.version());
    }
}
