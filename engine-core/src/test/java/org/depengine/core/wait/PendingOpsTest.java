package org.depengine.core.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * {@link PendingOps}: a sealed epoch finishes exactly when every op that entered it (or an older
 * epoch) has exited, while other threads keep entering and exiting.
 */
class PendingOpsTest {
    @Test
    void aSealedEpochWaitsForItsOpsAndNotForLaterOnes() throws InterruptedException {
        PendingOps p = new PendingOps();
        PendingOps.Epoch a = p.enter();
        PendingOps.Epoch b = p.enter();
        PendingOps.Epoch sealed = p.seal();
        PendingOps.Epoch later = p.enter();
        assertFalse(PendingOps.await(sealed, System.nanoTime() + 1_000_000), "two ops are still in it");
        assertEquals(3, p.pending());
        a.exit();
        b.exit();
        assertTrue(PendingOps.await(sealed, System.nanoTime() + 1_000_000_000L), "its ops exited; a later op does not count");
        AtomicBoolean ran = new AtomicBoolean();
        PendingOps.whenFinished(sealed, () -> ran.set(true));
        assertTrue(ran.get());
        PendingOps.Epoch second = p.seal();
        AtomicBoolean ranLater = new AtomicBoolean();
        PendingOps.whenFinished(second, () -> ranLater.set(true));
        assertFalse(ranLater.get());
        later.exit();
        assertTrue(ranLater.get(), "the last exit finishes the epoch and runs its callback");
        assertTrue(PendingOps.await(p.seal(), System.nanoTime()), "an empty epoch is finished when sealed");
        assertEquals(0, p.pending());
    }

    @Test
    void theEntryNumbersTheOpsInOrderAcrossSeals() throws InterruptedException {
        PendingOps p = new PendingOps();
        int threads = 3;
        int perThread = 20_000;
        long[][] ids = new long[threads][perThread];
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> pushers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] mine = ids[t];
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    PendingOps.Epoch e;
                    long id;
                    int n = i % 7 == 0 ? 3 : 1; // now and then a replay's ops at once
                    while ((id = (e = p.current()).tryEnter(n)) < 0) {
                        Thread.onSpinWait();
                    }
                    mine[i] = id;
                    for (int k = 0; k < n; k++) {
                        e.exit();
                    }
                }
            });
            th.start();
            pushers.add(th);
        }
        start.countDown();
        while (pushers.stream().anyMatch(Thread::isAlive)) {
            PendingOps.await(p.seal(), System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
        }
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (long[] mine : ids) {
            for (int i = 0; i < perThread; i++) {
                if (i > 0 && mine[i] <= mine[i - 1]) {
                    throw new AssertionError("a thread's ids decreased: " + mine[i - 1] + ", then " + mine[i]);
                }
                int n = i % 7 == 0 ? 3 : 1;
                for (int k = 0; k < n; k++) {
                    assertTrue(seen.add(mine[i] + k), "id " + (mine[i] + k) + " handed out twice");
                }
            }
        }
        assertTrue(PendingOps.await(p.seal(), System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
        assertEquals(0, p.pending());
    }

    @Test
    void underConcurrentEntersExitsAndSealsNoWaitEndsBeforeItsOpsExited() throws InterruptedException {
        int pushers = 2;
        int exiters = 2;
        int perPusher = Boolean.getBoolean("depengine.test.long") ? 2_000_000 : 200_000;
        PendingOps p = new PendingOps();
        AtomicLong clock = new AtomicLong();
        AtomicLongArray enteredAt = new AtomicLongArray(pushers * perPusher); // clock after enter returned
        AtomicLongArray exitedAt = new AtomicLongArray(pushers * perPusher);  // clock before exit was called
        BlockingQueue<Object[]> handOff = new ArrayBlockingQueue<>(1024);
        AtomicInteger exited = new AtomicInteger();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        CountDownLatch pushersDone = new CountDownLatch(pushers);
        for (int t = 0; t < pushers; t++) {
            int base = t * perPusher;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < perPusher; i++) {
                        PendingOps.Epoch e = p.enter();
                        enteredAt.set(base + i, clock.incrementAndGet());
                        handOff.put(new Object[] {base + i, e});
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                pushersDone.countDown();
            }));
        }
        for (int t = 0; t < exiters; t++) {
            threads.add(new Thread(() -> {
                try {
                    while (exited.get() < pushers * perPusher) {
                        Object[] op = handOff.poll(10, TimeUnit.MILLISECONDS);
                        if (op != null) {
                            exitedAt.set((int) op[0], clock.incrementAndGet());
                            ((PendingOps.Epoch) op[1]).exit();
                            exited.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        threads.forEach(Thread::start);
        int seals = 0;
        while (pushersDone.getCount() > 0) {
            long sealBegins = clock.incrementAndGet();
            PendingOps.Epoch sealed = p.seal();
            assertTrue(PendingOps.await(sealed, System.nanoTime() + TimeUnit.SECONDS.toNanos(60)), "a sealed epoch never finished");
            long waitEnded = clock.incrementAndGet();
            seals++;
            for (int k = 0; k < pushers * perPusher; k++) {
                long in = enteredAt.get(k);
                if (in != 0 && in < sealBegins) {
                    long out = exitedAt.get(k);
                    if (out == 0 || out > waitEnded) {
                        problems.add("op " + k + " entered before seal " + seals + " but had not exited when its wait ended");
                        break;
                    }
                }
            }
            if (!problems.isEmpty()) {
                break;
            }
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertEquals(List.of(), problems);
        assertTrue(seals > 0);
        assertTrue(PendingOps.await(p.seal(), System.nanoTime() + TimeUnit.SECONDS.toNanos(10)));
        assertEquals(0, p.pending());
    }
}
