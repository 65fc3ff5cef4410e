package org.depengine.core.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.depengine.api.Context;
import org.depengine.api.FnProperty;
import org.depengine.api.SyncFn;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDef;
import org.depengine.core.tracker.IdleOpHost;
import org.depengine.core.tracker.OpHost;
import org.depengine.core.tracker.Var;
import org.junit.jupiter.api.Test;

/**
 * The worker group's wake-up protocol keeps its promise under races: ops submitted together while the
 * group's workers are spinning, parking or parked reach as many workers as there are ops, so ops that
 * can only finish together (each waits at one barrier for the others) always do. Each round submits
 * one op per worker from a thread that is not a worker, after a pause of random length, so that the
 * submits land while workers go from spinning to parked. A lost wake-up shows as a broken barrier: an op
 * queued while a parked worker was never woken waits until an op that needs it gives up.
 */
class WorkerGroupWakeUpTest {
    private static final Object OWNER = new Object();
    private static final SyncFn NOTHING = ctx -> { };
    private static final long BARRIER_SECONDS = 20;

    /** The ops' host: nothing to do, the group's runner below runs each op's action directly. */
    private static final OpHost NO_HOST = new IdleOpHost();

    private static int rounds() {
        return Boolean.getBoolean("depengine.test.long") ? 20_000 : 2_000;
    }

    @Test
    void opsSubmittedTogetherReachAsManyWorkersAsThereAreOps() throws InterruptedException {
        for (int workers : new int[] {2, 4}) {
            runRounds(workers, rounds(), new Random(workers));
        }
    }

    private static void runRounds(int workers, int rounds, Random random) throws InterruptedException {
        Map<Long, Runnable> actions = new ConcurrentHashMap<>();
        AtomicReference<Throwable> broken = new AtomicReference<>();
        OpRunner runner = (op, stream) -> actions.remove(op.id()).run();
        WorkerGroup group = new WorkerGroup(OWNER, "wake-test-" + workers, workers, false, runner);
        OpDef def = new OpDef(OWNER, NOTHING, new Var[0], new Var[0], FnProperty.NORMAL, "together", OpDef.Kind.USER);
        long id = 0;
        try {
            for (int round = 0; round < rounds && broken.get() == null; round++) {
                CyclicBarrier together = new CyclicBarrier(workers);
                CountDownLatch done = new CountDownLatch(workers);
                OpBlock[] ops = new OpBlock[workers];
                for (int i = 0; i < workers; i++) {
                    long opId = ++id;
                    int r = round;
                    actions.put(opId, () -> {
                        try {
                            together.await(BARRIER_SECONDS, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            broken.compareAndSet(null, new AssertionError("round " + r + " with " + workers
                                    + " workers: an op waited " + BARRIER_SECONDS + " s for the others to run", e));
                        } finally {
                            done.countDown();
                        }
                    });
                    ops[i] = new OpBlock(def, NO_HOST, Context.cpu(), 0, false, opId, null, null, null);
                }
                // Idle for 0 to ~120 µs: the spinner's busy spin, its yielding spin, or its park (50 µs).
                LockSupport.parkNanos(random.nextInt(120_000));
                for (OpBlock op : ops) {
                    group.submit(op);
                }
                assertTrue(done.await(2 * BARRIER_SECONDS, TimeUnit.SECONDS), "round " + round + " did not finish");
            }
        } finally {
            assertTrue(group.shutdown(10_000), "the workers stop");
        }
        if (broken.get() != null) {
            throw new AssertionError(broken.get().getMessage(), broken.get());
        }
        assertEquals(0, actions.size(), "every op ran");
    }
}
