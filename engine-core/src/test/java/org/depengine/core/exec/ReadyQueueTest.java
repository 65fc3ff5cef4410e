package org.depengine.core.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.Var;
import org.junit.jupiter.api.Test;

/** {@link ReadyQueue}: FIFO, nothing lost or doubled under concurrent producers and consumers. */
class ReadyQueueTest {
    private static final Var[] NONE = new Var[0];
    private static final OpHost HOST = new OpHost() {
        @Override
        public void ready(OpBlock op) {
        }

        @Override
        public void completed(OpBlock op, Throwable error) {
        }
    };
    private static final OpDef DEF = new OpDef(new Object(), (SyncFn) ctx -> { }, NONE, NONE, FnProperty.NORMAL, "q", OpDef.Kind.USER);

    private static OpBlock op(long id) {
        return new OpBlock(DEF, HOST, Context.cpu(), 0, false, id, null, null, null);
    }

    @Test
    void oneThreadSeesFifoOrder() {
        ReadyQueue q = new ReadyQueue();
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        assertNull(q.peek());
        List<OpBlock> in = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            OpBlock o = op(i);
            in.add(o);
            q.offer(o);
        }
        assertEquals(100, q.size());
        assertSame(in.get(0), q.peek());
        List<OpBlock> seen = new ArrayList<>();
        q.iterator().forEachRemaining(seen::add);
        assertEquals(in, seen);
        for (OpBlock o : in) {
            assertSame(o, q.poll());
        }
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        assertThrows(NullPointerException.class, () -> q.offer(null));
    }

    @Test
    void concurrentProducersAndConsumersLoseAndDoubleNothingAndKeepEachProducersOrder() throws InterruptedException {
        int producers = 3;
        int consumers = 3;
        int perProducer = Boolean.getBoolean("depengine.test.long") ? 1_000_000 : 100_000;
        ReadyQueue q = new ReadyQueue();
        AtomicIntegerArray taken = new AtomicIntegerArray(producers * perProducer);
        AtomicInteger left = new AtomicInteger(producers * perProducer);
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(producers + consumers);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            threads.add(new Thread(() -> {
                for (int i = 0; i < perProducer; i++) {
                    q.offer(op(base + i));
                }
                done.countDown();
            }));
        }
        for (int c = 0; c < consumers; c++) {
            threads.add(new Thread(() -> {
                long[] lastPerProducer = new long[producers];
                java.util.Arrays.fill(lastPerProducer, -1);
                while (left.get() > 0) {
                    OpBlock o = q.poll();
                    if (o == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    int id = (int) o.id();
                    if (taken.getAndIncrement(id) != 0) {
                        problems.add("op " + id + " taken twice");
                    }
                    int p = id / perProducer;
                    if (id <= lastPerProducer[p]) {
                        problems.add("producer " + p + "'s op " + id + " came after " + lastPerProducer[p]);
                    }
                    lastPerProducer[p] = id;
                    left.decrementAndGet();
                }
                done.countDown();
            }));
        }
        threads.forEach(Thread::start);
        assertTrue(done.await(120, TimeUnit.SECONDS), "ops lost: " + left.get() + " never taken");
        assertEquals(List.of(), problems);
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        for (int i = 0; i < producers * perProducer; i++) {
            assertEquals(1, taken.get(i), "op " + i);
        }
        assertFalse(q.iterator().hasNext());
    }
}
