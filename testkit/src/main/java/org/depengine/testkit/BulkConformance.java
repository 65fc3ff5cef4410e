package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Bulk;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.junit.jupiter.api.Test;

/**
 * Bulk execution ({@code Engine.bulk(n)}): consecutive synchronous ops of one thread merge into one
 * op; results, versions and failures equal those of the ops pushed one by one; what ends a merged op;
 * other threads' pushes stay ordered after the members pushed before them; bad use is refused. What
 * was merged is seen through a listener's {@code pushed} events, which a push reports on the pushing
 * thread (so the counts are exact without waiting). With {@code -Ddepengine.test.long=true} the
 * randomized comparison runs many more seeds.
 */
public abstract class BulkConformance extends EngineTestBase {

    private static boolean longForm() {
        return Boolean.getBoolean("depengine.test.long");
    }

    /** Records the names of the ops pushed, in order. */
    private static final class Pushed implements OpListener {
        final List<String> names = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void pushed(OpInfo op, long nanoTime) {
            names.add(op.name());
        }

        List<String> snapshot() {
            synchronized (names) {
                return new ArrayList<>(names);
            }
        }
    }

    private Pushed listen() {
        Pushed p = new Pushed();
        engine.addListener(p);
        return p;
    }

    /** Starts a thread (joined with {@link #joinBounded}); what it throws fails the test there. */
    private static Thread start(String name, Runnable body, List<Throwable> errors) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                errors.add(e);
            }
        }, "bulk-test-" + name);
        t.start();
        return t;
    }

    private static void joinAll(List<Thread> threads, List<Throwable> errors) throws InterruptedException {
        for (Thread t : threads) {
            joinBounded(t);
        }
        synchronized (errors) {
            if (!errors.isEmpty()) {
                AssertionError e = new AssertionError("a pushing thread failed: " + errors.get(0), errors.get(0));
                throw e;
            }
        }
    }

    private void inc(long[] cell, VarHandle v, String name) {
        engine.op(name).writes(v).run(ctx -> cell[0]++);
    }

    @Test
    void consecutiveOpsMergeUpToTheSize() {
        VarHandle v = engine.newVariable("v");
        long[] cell = {0};
        Pushed pushed = listen();
        try (Bulk b = engine.bulk(4)) {
            assertEquals(4, b.size());
            for (int i = 0; i < 10; i++) {
                inc(cell, v, "m" + i);
            }
        }
        engine.waitForAll(BOUND);
        assertEquals(List.of("bulk[4]: m0..m3", "bulk[4]: m4..m7", "bulk[2]: m8..m9"), pushed.snapshot());
        assertEquals(10, cell[0]);
        assertEquals(10, v.version(), "every member's write counts");
    }

    @Test
    void versionsCountEveryMembersWritesOnEachVariable() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        VarHandle c = engine.newVariable("c");
        try (Bulk bulk = engine.bulk(16)) {
            for (int i = 0; i < 5; i++) {
                engine.pushSync(ctx -> { }, Context.cpu(), List.of(c), List.of(a));
            }
            for (int i = 0; i < 3; i++) {
                engine.pushSync(ctx -> { }, Context.cpu(), List.of(a), List.of(b, c));
            }
        }
        engine.waitForAll(BOUND);
        assertEquals(5, a.version());
        assertEquals(3, b.version());
        assertEquals(3, c.version(), "read by some members, written by others: only the writes count");
    }

    @Test
    void randomizedResultsAndVersionsEqualTheSerialRun() {
        int seeds = longForm() ? 40 : 4;
        int ops = longForm() ? 20_000 : 2_000;
        List<Context> contexts = contexts();
        for (int seed = 0; seed < seeds; seed++) {
            RandomWorkload w = RandomWorkload.generate(seed, ops, 20, 0, 3);
            double[] expected = w.runSerial();
            long[] expectedVersions = new long[w.vars];
            for (RandomWorkload.Op op : w.ops) {
                expectedVersions[op.write]++;
            }
            double[] data = w.initialData();
            VarHandle[] vars = new VarHandle[w.vars];
            for (int i = 0; i < vars.length; i++) {
                vars[i] = engine.newVariable("v" + i);
            }
            Random rnd = new Random(seed);
            int size = 1 + rnd.nextInt(20);
            Bulk bulk = engine.bulk(size);
            try {
                for (RandomWorkload.Op op : w.ops) {
                    List<VarHandle> reads = new ArrayList<>();
                    for (int r : op.reads) {
                        reads.add(vars[r]);
                    }
                    Context ctx = contexts.get(rnd.nextInt(100) < 90 ? 0 : rnd.nextInt(contexts.size()));
                    int kind = rnd.nextInt(100);
                    if (kind < 3) {
                        engine.pushAsync((c, done) -> {
                            op.apply(data);
                            done.complete();
                        }, ctx, reads, List.of(vars[op.write]), FnProperty.NORMAL, 0, null);
                    } else {
                        FnProperty prop = kind < 6 ? FnProperty.NO_SKIP : FnProperty.NORMAL;
                        engine.pushSync(c -> op.apply(data), ctx, reads, List.of(vars[op.write]), prop, 0, null);
                    }
                    if (rnd.nextInt(500) == 0) {
                        engine.waitForVar(vars[rnd.nextInt(vars.length)], BOUND);
                    }
                }
            } finally {
                bulk.close();
            }
            engine.waitForAll(BOUND);
            assertArrayEquals(expected, data, "seed " + seed + ", bulk size " + size);
            for (int i = 0; i < vars.length; i++) {
                assertEquals(expectedVersions[i], vars[i].version(), "version of v" + i + ", seed " + seed);
            }
        }
    }

    @Test
    void aThrowingMemberFailsItsWritesAndSkipsTheMembersAfterIt() {
        VarHandle a = engine.newVariable("a");
        VarHandle b = engine.newVariable("b");
        VarHandle c = engine.newVariable("c");
        VarHandle d = engine.newVariable("d");
        boolean[] ran = new boolean[4];
        IllegalStateException boom = new IllegalStateException("boom");
        Pushed pushed = listen();
        try (Bulk bulk = engine.bulk(8)) {
            engine.op("first").writes(a).run(ctx -> ran[0] = true);
            engine.op("thrower").reads(a).writes(b).run(ctx -> {
                ran[1] = true;
                throw boom;
            });
            engine.op("independent").writes(c).run(ctx -> ran[2] = true);
            engine.op("reader").reads(a).writes(d).run(ctx -> ran[3] = true);
        }
        assertEquals(List.of("bulk[4]: first..reader"), pushed.snapshot(), "one merged op");
        assertDoesNotThrow(() -> engine.waitForVar(a, BOUND), "a member before the failed one keeps its result");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(c, BOUND),
                "a later member is skipped and its writes carry the failure, even if independent");
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().contains("'thrower'"), e.getMessage());
        assertDoesNotThrow(() -> engine.waitForVar(b, BOUND), "the failure is reported once");
        assertDoesNotThrow(() -> engine.waitForVar(d, BOUND));
        assertDoesNotThrow(() -> engine.waitForAll(BOUND));
        assertTrue(ran[0] && ran[1]);
        assertFalse(ran[2], "skipped after the failure");
        assertFalse(ran[3], "skipped after the failure");
        for (VarHandle v : List.of(a, b, c, d)) {
            assertEquals(1, v.version(), "skipped writes count: " + v.name());
        }
    }

    @Test
    void aFailureIsReportedByWaitForAllAsForALoneOp() {
        VarHandle a = engine.newVariable("a");
        IllegalArgumentException bad = new IllegalArgumentException("bad");
        try (Bulk bulk = engine.bulk(4)) {
            engine.op("ok").writes(a).run(ctx -> { });
            engine.op("bad").writes(a).run(ctx -> {
                throw bad;
            });
        }
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForAll(BOUND));
        assertSame(bad, e.getCause());
        assertDoesNotThrow(() -> engine.waitForVar(a, BOUND), "reported once");
    }

    @Test
    void eachMemberFollowsTheSkipRuleOnItsOwn() {
        VarHandle failed = engine.newVariable("failed");
        VarHandle x = engine.newVariable("x");
        VarHandle y = engine.newVariable("y");
        VarHandle z = engine.newVariable("z");
        RuntimeException earlier = new RuntimeException("earlier");
        engine.op("earlier").writes(failed).run(ctx -> {
            throw earlier;
        });
        boolean[] ran = new boolean[3];
        try (Bulk bulk = engine.bulk(8)) {
            engine.op("uses failed").reads(failed).writes(x).run(ctx -> ran[0] = true);
            engine.op("unrelated").writes(y).run(ctx -> ran[1] = true);
            engine.op("no-skip").reads(failed).writes(z).property(FnProperty.NO_SKIP).run(ctx -> ran[2] = true);
        }
        engine.waitForVar(y, BOUND);
        assertFalse(ran[0], "skipped: it reads a failed variable");
        assertTrue(ran[1], "an unrelated member runs, as it would alone");
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(x, BOUND));
        assertSame(earlier, e.getCause(), "the skipped member passes the failure on");
        engine.waitForVar(z, BOUND);
        assertTrue(ran[2], "a NO_SKIP member runs");
    }

    @Test
    void whatEndsAMergedOp() throws Exception {
        VarHandle v = engine.newVariable("v");
        long[] cell = {0};
        Pushed pushed = listen();
        try (Bulk bulk = engine.bulk(100)) {
            inc(cell, v, "a1");
            inc(cell, v, "a2");
            engine.op("async").writes(v).runAsync((ctx, done) -> {
                cell[0]++;
                done.complete();
            });
            inc(cell, v, "b1");
            inc(cell, v, "b2");
            engine.op("other context").writes(v).on(Context.cpu(1)).run(ctx -> cell[0]++);
            inc(cell, v, "c1");
            engine.op("no-skip").writes(v).property(FnProperty.NO_SKIP).run(ctx -> cell[0]++);
            inc(cell, v, "d1");
            engine.op("priority").writes(v).priority(3).run(ctx -> cell[0]++);
            inc(cell, v, "e1");
            engine.waitForVar(v, BOUND);
            inc(cell, v, "f1");
            engine.whenAllDone().get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            inc(cell, v, "g1");
            bulk.flush();
            inc(cell, v, "h1");
            inc(cell, v, "h2");
        }
        engine.waitForAll(BOUND);
        assertEquals(List.of("bulk[2]: a1..a2", "async", "bulk[2]: b1..b2", "other context", "c1", "no-skip", "d1",
                "priority", "e1", "f1", "g1", "bulk[2]: h1..h2"), pushed.snapshot());
        assertEquals(15, cell[0]);
        assertEquals(15, v.version());
    }

    @Test
    void closingTheEnginePushesWhatAnOpenBulkHolds() {
        VarHandle v = engine.newVariable("v");
        long[] cell = {0};
        Bulk bulk = engine.bulk(16);
        inc(cell, v, "held1");
        inc(cell, v, "held2");
        engine.close();
        assertEquals(2, cell[0], "nothing is lost");
        assertDoesNotThrow(bulk::close, "the bulk can still be closed: it holds nothing");
        assertThrows(IllegalStateException.class, () -> engine.bulk(4));
    }

    @Test
    void anotherThreadsPushIsOrderedAfterTheMembersHeldBeforeIt() throws Exception {
        VarHandle x = engine.newVariable("x");
        long[] cell = {0};
        AtomicReference<Long> seen = new AtomicReference<>();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch pushedByOther = new CountDownLatch(1);
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        Thread other = start("reader", () -> {
            try {
                assertTrue(held.await(BOUND.toMillis(), TimeUnit.MILLISECONDS));
                engine.op("reader").reads(x).run(ctx -> seen.set(cell[0]));
                engine.waitForAll(BOUND);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                pushedByOther.countDown();
            }
        }, errors);
        try (Bulk bulk = engine.bulk(16)) {
            engine.op("writer").writes(x).run(ctx -> cell[0] = 7);
            held.countDown(); // the member was pushed: the other thread's reader must see it
            assertTrue(pushedByOther.await(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        }
        joinAll(List.of(other), errors);
        assertEquals(7L, seen.get());
        assertEquals(1, x.version());
    }

    @Test
    void threadsInBulksAtOnceKeepEveryThreadsOrder() throws Exception {
        int threads = 3;
        int perThread = longForm() ? 20_000 : 2_000;
        VarHandle shared = engine.newVariable("shared");
        long[] total = {0};
        VarHandle[] own = new VarHandle[threads];
        long[][] seq = new long[threads][1];
        long[] bad = {0};
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            int id = t;
            own[t] = engine.newVariable("own" + t);
            ts.add(start("pusher-" + t, () -> {
                try {
                    assertTrue(start.await(BOUND.toMillis(), TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                try (Bulk bulk = engine.bulk(1 + id * 7)) {
                    for (int i = 0; i < perThread; i++) {
                        long expect = i;
                        engine.pushSync(ctx -> {
                            if (seq[id][0] != expect) {
                                bad[0]++;
                            }
                            seq[id][0]++;
                        }, Context.cpu(), List.of(), List.of(own[id]));
                        if (i % 3 == 0) {
                            engine.pushSync(ctx -> total[0]++, Context.cpu(), List.of(own[id]), List.of(shared));
                        }
                    }
                }
            }, errors));
        }
        start.countDown();
        joinAll(ts, errors);
        engine.waitForAll(BOUND);
        assertEquals(0, bad[0], "every thread's ops ran in its push order");
        int sharedPerThread = (perThread + 2) / 3;
        assertEquals((long) threads * sharedPerThread, total[0]);
        assertEquals((long) threads * sharedPerThread, shared.version());
        for (int t = 0; t < threads; t++) {
            assertEquals(perThread, own[t].version());
        }
    }

    @Test
    void badUseIsRefusedNamingWhatToDo() throws Exception {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> engine.bulk(0)).getMessage().contains("0"));
        Bulk bulk = engine.bulk(4);
        IllegalStateException nested = assertThrows(IllegalStateException.class, () -> engine.bulk(2));
        assertTrue(nested.getMessage().contains("nest"), nested.getMessage());
        AtomicReference<Throwable> fromOther = new AtomicReference<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        joinAll(List.of(start("closer", () -> fromOther.set(assertThrows(IllegalStateException.class, bulk::close)), errors)), errors);
        assertTrue(fromOther.get().getMessage().contains("thread"), fromOther.get().getMessage());
        VarHandle v = engine.newVariable("v");
        long[] cell = {0};
        inc(cell, v, "kept");
        assertThrows(NullPointerException.class, () -> engine.pushSync(null, Context.cpu(), List.of(), List.of(v)));
        VarHandle gone = engine.newVariable("gone");
        engine.deleteVariable(ctx -> { }, Context.cpu(), gone);
        assertThrows(IllegalStateException.class, () -> engine.op("uses deleted").writes(gone).run(ctx -> { }));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> engine.op("nowhere").writes(v).on(Context.of("nosuchdevice", 0)).run(ctx -> { }));
        assertTrue(unknown.getMessage().contains("nosuchdevice"), "refused at the push, not at the flush: "
                + unknown.getMessage());
        bulk.close(); // still open after the refused close on the other thread
        bulk.close(); // idempotent
        assertThrows(IllegalStateException.class, bulk::flush, "a closed bulk cannot flush");
        engine.waitForAll(BOUND);
        assertEquals(1, cell[0], "the refused pushes left the held member alone");
        assertEquals(1, v.version());
        try (Bulk again = engine.bulk(2)) {
            assertEquals(2, again.size(), "a closed bulk lets the thread open another");
        }
    }
}
