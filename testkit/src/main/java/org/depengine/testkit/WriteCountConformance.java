package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Bulk;
import org.depengine.api.Capture;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.OprHandle;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;

/**
 * The write count, {@link VarHandle#version()}, is a contract (the KVStore's rounds have relied on it):
 * every write counts exactly once, whatever became of its op, pushed one by one, merged in a bulk or
 * replayed from a graph, on every engine and device. A push that was refused counts nothing. Every op
 * runs on the setup's first context, so a device setup checks writes released at launch and completed
 * by the device.
 */
public abstract class WriteCountConformance extends EngineTestBase {
    private static final RuntimeException BOOM = new IllegalStateException("boom");

    private void write(VarHandle v, String name) {
        engine.pushSync(ctx -> { }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, name);
    }

    private void fail(VarHandle v, String name) {
        engine.pushSync(ctx -> {
            throw BOOM;
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, name);
    }

    /** Waits for everything pushed so far, expecting the one failure {@code BOOM} reported. */
    private void awaitReportingBoom() {
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForAll(BOUND));
        assertEquals(BOOM, e.getCause());
    }

    @Test
    void everyWriteCountsOnceWhetherItRanFailedOrWasSkipped() {
        VarHandle v = engine.newVariable("v");
        VarHandle w = engine.newVariable("w");
        VarHandle x = engine.newVariable("x");
        write(v, "ran");
        fail(v, "failed");
        write(v, "skipped: v carries the failure");
        engine.pushSync(ctx -> { }, opContext(), List.of(v), List.of(w), FnProperty.NORMAL, 0, "skipped: reads v");
        engine.pushAsync((ctx, cb) -> cb.fail(new RuntimeException("async")), opContext(), List.of(), List.of(x),
                FnProperty.NORMAL, 0, "failed by its callback");
        write(x, "skipped: x carries the callback's failure");
        assertThrows(EngineException.class, () -> engine.waitForAll(BOUND), "two failures, reported together");
        assertEquals(3, v.version(), "a write that ran, one that failed, one skipped");
        assertEquals(1, w.version(), "a skipped write");
        assertEquals(2, x.version(), "a write its callback failed, and a skipped one");
    }

    @Test
    void writesSkippedAfterNotifyShutdownCountAndSoDoesADeletion() {
        VarHandle v = engine.newVariable("v");
        write(v, "before");
        engine.notifyShutdown();
        write(v, "skipped after notifyShutdown");
        engine.pushSync(ctx -> { }, opContext(), List.of(), List.of(v), FnProperty.DELETE_VAR, 0, "runs: DELETE_VAR");
        engine.deleteVariable(ctx -> { }, opContext(), v);
        engine.waitForAll(BOUND);
        assertEquals(4, v.version(), "two writes before and after notifyShutdown, a DELETE_VAR op, the deletion");
    }

    @Test
    void aRefusedPushCountsNothing() {
        VarHandle v = engine.newVariable("v");
        VarHandle dead = engine.newVariable("dead");
        engine.deleteVariable(ctx -> { }, opContext(), dead);
        assertThrows(IllegalStateException.class,
                () -> engine.pushSync(ctx -> { }, opContext(), List.of(dead), List.of(v), FnProperty.NORMAL, 0, "refused"));
        engine.waitForAll(BOUND);
        assertEquals(0, v.version(), "the push threw: nothing was registered, nothing counts");
    }

    @Test
    void everyOperatorRunCounts() {
        VarHandle v = engine.newVariable("v");
        OprHandle op = engine.newOperator((ctx, cb) -> cb.complete(), List.of(), List.of(v), FnProperty.NORMAL, "opr");
        for (int i = 0; i < 5; i++) {
            engine.push(op, opContext(), 0, true);
        }
        engine.waitForAll(BOUND);
        assertEquals(5, v.version());
    }

    @Test
    void everyMemberOfABulkCountsTheSkippedOnesAfterAFailureIncluded() {
        VarHandle v = engine.newVariable("v");
        VarHandle w = engine.newVariable("w");
        try (Bulk b = engine.bulk(8)) {
            write(v, "m0");
            write(v, "m1");
            fail(v, "m2 fails");
            write(v, "m3: skipped after the failed member");
            engine.pushSync(ctx -> { }, opContext(), List.of(v), List.of(w), FnProperty.NORMAL, 0, "m4: skipped");
            b.flush();
        }
        awaitReportingBoom();
        assertEquals(4, v.version(), "every member that writes v, as if pushed alone");
        assertEquals(1, w.version());
    }

    @Test
    void everyWriteOfAReplayCountsTheOnesOrderedByEdgesIncluded() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        Graph g;
        try (Capture c = engine.capture()) {
            write(a, "first write of a: registered");
            engine.pushSync(ctx -> { }, opContext(), List.of(a), List.of(b), FnProperty.NORMAL, 0, "reads a, writes b");
            write(a, "middle write of a: ordered by edges, not registered");
            write(a, "middle write of a");
            write(a, "last write of a: registered");
            write(b, "last write of b");
            g = c.graph();
        }
        int replays = 7;
        for (int i = 0; i < replays; i++) {
            g.replay();
        }
        engine.waitForAll(BOUND);
        assertEquals(4L * replays, a.version(), "four writes of a per replay");
        assertEquals(2L * replays, b.version(), "two writes of b per replay");
    }

    @Test
    void aReplayedWriteThatFailsOrIsSkippedCountsToo() {
        VarHandle a = engine.newVariable("a");
        Graph g;
        try (Capture c = engine.capture()) {
            write(a, "first");
            fail(a, "middle: fails");
            write(a, "middle: skipped");
            write(a, "last: skipped");
            g = c.graph();
        }
        g.replay();
        awaitReportingBoom();
        assertEquals(4, a.version());
        g.replay();
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(a, BOUND));
        assertEquals(BOOM, e.getCause());
        assertEquals(8, a.version());
    }

    @Test
    void concurrentPushesBulksAndReplaysEachCountEveryWrite() throws InterruptedException {
        VarHandle shared = engine.newVariable("shared");
        Graph g;
        try (Capture c = engine.capture()) {
            for (int i = 0; i < 4; i++) {
                write(shared, "replayed " + i);
            }
            g = c.graph();
        }
        int rounds = 50;
        CountDownLatch start = new CountDownLatch(1);
        List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());
        Runnable[] roles = {
            () -> {
                for (int i = 0; i < rounds; i++) {
                    write(shared, "pushed");
                }
            },
            () -> {
                for (int i = 0; i < rounds; i++) {
                    try (Bulk b = engine.bulk(4)) {
                        write(shared, "bulk member");
                        write(shared, "bulk member");
                    }
                }
            },
            () -> {
                for (int i = 0; i < rounds; i++) {
                    g.replay();
                }
            },
        };
        List<Thread> threads = new ArrayList<>();
        for (Runnable role : roles) {
            Thread t = new Thread(() -> {
                try {
                    if (start.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                        role.run();
                    }
                } catch (Throwable e) {
                    thrown.add(e);
                }
            }, "write-count-pusher");
            t.start();
            threads.add(t);
        }
        start.countDown();
        for (Thread t : threads) {
            joinBounded(t);
        }
        assertEquals(List.of(), thrown, "the pushing threads");
        engine.waitForAll(BOUND);
        assertEquals((long) rounds * (1 + 2 + 4), shared.version(), "one per push, two per bulk, four per replay");
    }
}
