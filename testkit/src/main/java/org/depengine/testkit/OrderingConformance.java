package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.VarHandle;
import org.depengine.api.WaitTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Ordering, waits, versions and results equal to a serial run. */
public abstract class OrderingConformance extends EngineTestBase {

    @Test
    void writesToOneVariableRunInPushOrder() {
        VarHandle v = engine.newVariable("log");
        List<Integer> log = new ArrayList<>(); // deliberately not thread-safe: the engine must serialise
        for (int i = 0; i < 2000; i++) {
            int k = i;
            engine.pushSync(ctx -> log.add(k), Context.cpu(), List.of(), List.of(v));
        }
        engine.waitForVar(v);
        assertEquals(2000, log.size());
        for (int i = 0; i < 2000; i++) {
            assertEquals(i, log.get(i), "write " + i + " ran out of push order");
        }
    }

    @Test
    void readsSeeTheWritePushedBeforeThemAndNotTheOneAfter() {
        VarHandle v = engine.newVariable("x");
        int[] cell = {0};
        int[] seen = new int[200];
        for (int i = 0; i < 200; i++) {
            int k = i;
            engine.pushSync(ctx -> cell[0] = k + 1, Context.cpu(), List.of(), List.of(v));
            VarHandle out = engine.newVariable();
            engine.pushSync(ctx -> seen[k] = cell[0], Context.cpu(), List.of(v), List.of(out));
        }
        engine.waitForAll();
        for (int i = 0; i < 200; i++) {
            assertEquals(i + 1, seen[i], "read " + i);
        }
    }

    @Test
    void versionCountsCompletedWritesOnly() {
        VarHandle v = engine.newVariable();
        for (int i = 0; i < 10; i++) {
            engine.pushSync(ctx -> { }, Context.cpu(), List.of(v), List.of());
        }
        engine.waitForAll();
        assertEquals(0, v.version());
        for (int i = 0; i < 10; i++) {
            engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(v));
        }
        engine.waitForVar(v);
        assertEquals(10, v.version());
    }

    @Test
    void duplicatesInAListCountOnce() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        AtomicInteger runs = new AtomicInteger();
        engine.pushSync(ctx -> runs.incrementAndGet(), Context.cpu(), List.of(a, a, a), List.of(b, b), FnProperty.NORMAL, 0, "dups");
        engine.waitForAll();
        assertEquals(1, runs.get());
        assertEquals(1, b.version(), "a duplicated write must count once");
        assertEquals(0, a.version());
    }

    @Test
    void emptyListsAreFine() {
        AtomicInteger runs = new AtomicInteger();
        engine.pushSync(ctx -> runs.incrementAndGet(), Context.cpu(), List.of(), List.of());
        engine.waitForAll();
        assertEquals(1, runs.get());
    }

    @Test
    void waitForVarOnAFreshVariableReturnsAtOnce() {
        VarHandle v = engine.newVariable();
        engine.waitForVar(v, Duration.ofSeconds(5));
        assertEquals(0, v.version());
    }

    @Test
    void waitForVarWaitsForAPendingAsyncWriteButNotForRunningReads() throws Exception {
        VarHandle v = engine.newVariable("v");
        VarHandle sink = engine.newVariable("sink");
        Held heldRead = pushHeld(List.of(v), List.of(sink), "held-read");
        engine.waitForVar(v, BOUND); // a running read does not delay it
        assertThrows(WaitTimeoutException.class, () -> engine.waitForAll(Duration.ofMillis(50)),
                "waitForAll must wait for the held read");
        heldRead.complete();
        engine.waitForAll(BOUND);

        Held heldWrite = pushHeld(List.of(), List.of(v), "held-write");
        WaitTimeoutException timeout = assertThrows(WaitTimeoutException.class,
                () -> engine.waitForVar(v, Duration.ofMillis(50)));
        assertTrue(timeout.getMessage().contains("held-write"), timeout.getMessage());
        CountDownLatch returned = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            engine.waitForVar(v, BOUND);
            returned.countDown();
        });
        waiter.start();
        assertEquals(1, returned.getCount());
        heldWrite.complete();
        assertTrue(returned.await(BOUND.toSeconds(), TimeUnit.SECONDS));
        waiter.join();
        assertEquals(1, v.version());
    }

    @Test
    void waitForAllCoversEveryOpPushedBeforeIt() {
        int n = 500;
        VarHandle[] vs = new VarHandle[n];
        boolean[] ran = new boolean[n];
        for (int i = 0; i < n; i++) {
            vs[i] = engine.newVariable();
            int k = i;
            engine.pushSync(ctx -> ran[k] = true, Context.cpu(), List.of(), List.of(vs[i]));
        }
        engine.waitForAll();
        for (int i = 0; i < n; i++) {
            assertTrue(ran[i], "op " + i + " had not run when waitForAll returned");
        }
    }

    @Test
    void reusableOperatorRunsOncePerPushInOrder() {
        VarHandle v = engine.newVariable("acc");
        List<Integer> log = new ArrayList<>();
        AtomicInteger next = new AtomicInteger();
        OprHandle op = engine.newOperator((ctx, done) -> {
            log.add(next.getAndIncrement());
            done.complete();
        }, List.of(), List.of(v), FnProperty.NORMAL, "append");
        assertEquals("append", op.name());
        for (int i = 0; i < 100; i++) {
            engine.push(op, Context.cpu(), 0, false);
        }
        engine.waitForVar(v);
        assertEquals(100, log.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i, log.get(i));
        }
        engine.deleteOperator(op);
    }

    @Test
    void deleteVariableRunsAfterEveryEarlierUser() throws Exception {
        VarHandle buf = engine.newVariable("buffer");
        AtomicBoolean slowDone = new AtomicBoolean();
        AtomicInteger fastDone = new AtomicInteger();
        Held held = pushHeld(List.of(buf), List.of(engine.newVariable()), "slow-reader");
        engine.pushSync(ctx -> fastDone.incrementAndGet(), Context.cpu(), List.of(buf), List.of(engine.newVariable()),
                FnProperty.NORMAL, 0, "fast-reader");
        // Completes the slow reader only once this thread is blocked (in the naive engine's delete push,
        // or in waitForAll below): the deletion cannot have been allowed to run before that.
        Thread main = Thread.currentThread();
        Thread completer = new Thread(() -> {
            while (main.getState() != Thread.State.WAITING && main.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait();
            }
            slowDone.set(true);
            try {
                held.complete();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        completer.start();
        AtomicReference<String> seenAtDelete = new AtomicReference<>();
        engine.deleteVariable(ctx -> seenAtDelete.set(slowDone.get() + "/" + fastDone.get()), Context.cpu(), buf);
        engine.waitForAll();
        completer.join();
        assertEquals("true/1", seenAtDelete.get(), "the deletion must run after both readers");
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void randomWorkloadEqualsSerialOracle(long seed) {
        RandomWorkload w = RandomWorkload.generate(seed, 10_000, 100, 2, 19);
        double[] expected = w.runSerial();
        for (int repeat = 0; repeat < 2; repeat++) {
            assertArrayEquals(expected, runOnEngine(w, seed + repeat), "seed " + seed + " repeat " + repeat);
        }
    }

    /** Pushes the workload: half the ops with pushSync, half with pushAsync, over {@link #contexts()}. */
    protected double[] runOnEngine(RandomWorkload w, long seed) {
        double[] data = w.initialData();
        VarHandle[] vars = new VarHandle[w.vars];
        for (int i = 0; i < vars.length; i++) {
            vars[i] = engine.newVariable("v" + i);
        }
        List<Context> ctxs = contexts();
        Random rnd = new Random(seed);
        int i = 0;
        for (RandomWorkload.Op op : w.ops) {
            List<VarHandle> reads = new ArrayList<>(op.reads.length);
            for (int r : op.reads) {
                reads.add(vars[r]);
            }
            List<VarHandle> writes = List.of(vars[op.write]);
            Context ctx = ctxs.get(rnd.nextInt(ctxs.size()));
            if ((i++ & 1) == 0) {
                engine.pushSync(c -> op.apply(data), ctx, reads, writes);
            } else {
                engine.pushAsync((c, done) -> {
                    op.apply(data);
                    done.complete();
                }, ctx, reads, writes, FnProperty.NORMAL, 0, null);
            }
        }
        engine.waitForAll(BOUND);
        for (int k = 0; k < vars.length; k++) {
            engine.waitForVar(vars[k], BOUND);
        }
        assertFalse(engine.isClosed());
        return data;
    }
}
