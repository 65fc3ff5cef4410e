package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.depengine.profiler.Fakes.FakeOp;
import org.junit.jupiter.api.Test;

class RingTest {
    @Test
    void keepsTheLatestWindowAndCountsWhatItOverwrote() {
        Session s = new Session(16, 4, 16, 16);
        Ring r = s.newRing(Thread.currentThread());
        for (long i = 0; i < 40; i++) {
            r.put(Rec.READY, i, i * 3);
            r.publish();
        }
        assertEquals(40, r.written());
        assertEquals(24, r.dropped());
        long[] w = new long[16 * 3];
        long[] idx = new long[16];
        int n = r.snapshot(w, idx);
        assertEquals(16, n);
        for (int k = 0; k < n; k++) {
            assertEquals(24 + k, idx[k]);
            assertEquals(24 + k, w[k * 3 + 1]);
            assertEquals((24 + k) * 3, w[k * 3 + 2]);
        }
    }

    @Test
    void readersNeverAcceptTornRecordsWhileTheWriterLapsThem() throws Exception {
        Session s = new Session(64, 4, 16, 16);
        AtomicBoolean stop = new AtomicBoolean();
        Ring[] holder = new Ring[1];
        Thread writer = new Thread(() -> {
            Ring r = s.newRing(Thread.currentThread());
            synchronized (holder) {
                holder[0] = r;
                holder.notifyAll();
            }
            for (long i = 0; !stop.get(); i++) {
                // three words that must agree: a torn record would mix two writes
                r.put(Rec.READY | (i << 8), i * 31, ~i);
                r.publish();
            }
        }, "lapping-writer");
        writer.start();
        Ring r;
        synchronized (holder) {
            while (holder[0] == null) {
                holder.wait();
            }
            r = holder[0];
        }
        long[] w = new long[64 * 3];
        long[] idx = new long[64];
        long accepted = 0;
        long deadline = System.nanoTime() + 500_000_000L;
        while (System.nanoTime() < deadline) {
            int n = r.snapshot(w, idx);
            for (int k = 0; k < n; k++) {
                long i = w[k * 3] >>> 8;
                assertEquals(idx[k], i, "index matches the record's own");
                assertEquals(i * 31, w[k * 3 + 1]);
                assertEquals(~i, w[k * 3 + 2]);
                if (k > 0) {
                    assertTrue(idx[k] > idx[k - 1], "oldest first");
                }
            }
            accepted += n;
        }
        stop.set(true);
        writer.join();
        assertTrue(accepted > 0);
    }

    @Test
    void threadsBeyondMaxThreadsReuseDeadRingsOrAreCounted() throws Exception {
        Profiler p = Profiler.builder().maxThreads(1).jfr(false).build();
        p.start(new Fakes.ListenerSink("e").engine);
        Fakes.onThread("first", () -> Fakes.run(p.listener(), new FakeOp(1, "a"), 0, 1, -1, 2));
        // "first" has died: its ring is evicted for "second", its records counted as dropped
        Fakes.onThread("second", () -> Fakes.run(p.listener(), new FakeOp(2, "b"), 3, 4, -1, 5));
        assertEquals(4, p.droppedRecords(), "first's READY, STARTED, FINISHED and INFO (no variables)");
        assertEquals(1, p.stats().opCount());
        // a live ring is never evicted: this thread is refused and its records are counted
        CountDownLatch recorded = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread keeper = new Thread(() -> {
            Fakes.run(p.listener(), new FakeOp(3, "c"), 6, 7, -1, 8);
            recorded.countDown();
            try {
                done.await(); // keeps the ring's thread alive, so its ring cannot be evicted
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "keeper");
        keeper.start();
        try {
            assertTrue(recorded.await(30, TimeUnit.SECONDS), "keeper recorded its op");
            assertTrue(p.stats().row("c").isPresent(), "keeper's op is recorded (its ring replaced second's)");
            Fakes.run(p.listener(), new FakeOp(4, "d"), 9, 10, -1, 11);
            assertEquals(4 + 4 + 4, p.droppedRecords(), "first's, second's (evicted) and this thread's (refused)");
            assertEquals(java.util.List.of("c"), p.stats().rows().stream().map(AggregateStats.Row::name).toList());
        } finally {
            done.countDown();
            keeper.join();
        }
        p.stop();
    }

    @Test
    void internerCapsDistinctKeys() {
        Interner<String> in = new Interner<>(3);
        assertEquals(1, in.id("a"));
        assertEquals(2, in.id("b"));
        assertEquals(1, in.id("a"));
        assertEquals(3, in.id("c"));
        assertEquals(Interner.OVERFLOW, in.id("d"));
        assertTrue(in.overflowed());
        assertEquals("c", in.key(3));
        assertSame(null, in.key(Interner.OVERFLOW));
        Interner<String> big = new Interner<>(100_000);
        for (int i = 0; i < 100_000; i++) {
            assertEquals(i + 1, big.id("k" + i));
        }
        assertEquals("k99999", big.key(100_000));
    }
}
