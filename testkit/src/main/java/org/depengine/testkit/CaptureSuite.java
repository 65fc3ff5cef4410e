package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's calls recorded in a capture and replayed among direct calls. */
@Workers({1, 2, 3})
public abstract class CaptureSuite extends KVStoreSuite {
    // ------------------------------------------------------------------ capture and replay

    /**
     * A training step's store calls ({@code push} of several devices' values, {@code pull},
     * {@code pushPull}) recorded once and replayed k times, on every worker (up to 2), each worker
     * choosing replay or direct calls at random per step, with new values written directly between
     * steps: every step's pulls equal the serial sum of all pushes so far (with a store whose pulls see
     * the whole round; else the final values), which they do only if the replays' rounds are the calls'.
     * 8 steps here, 80 with {@code -Ddepengine.test.long=true}.
     */
    @Test
    void aGraphOfStoreCallsReplayedKTimesAmongDirectCallsGivesTheSerialValues() {
        int workers = Math.min(2, workers());
        int steps = Boolean.getBoolean("depengine.test.long") ? 80 : 8;
        int devs = devices().size();
        int[] lengths = {5, 3};
        List<KVStore> stores = openWorkers(workers);
        DeviceArray[][][] values = new DeviceArray[workers][2][devs];
        DeviceArray[][] outs = new DeviceArray[workers][2];
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            for (int k = 0; k < 2; k++) {
                init(s, "step" + k, devices().get(k % devs), ramp(lengths[k], 1));
                for (int d = 0; d < devs; d++) {
                    values[s.rank()][k][d] = array(s.engine(), devices().get(d), lengths[k], "value" + k);
                }
                outs[s.rank()][k] = array(s.engine(), devices().get(k % devs), lengths[k], "out" + k);
            }
        }
        float[][][] pulled = new float[workers][steps][]; // each worker's slots written by its thread, read after the join
        eachWorker(stores, s -> {
            int w = s.rank();
            Engine e = s.engine();
            Runnable step = () -> {
                s.push("step0", List.of(values[w][0]), 1);
                s.pull("step0", List.of(outs[w][0]), 1);
                s.pushPull("step1", List.of(values[w][1][0]), List.of(outs[w][1]), 0);
            };
            Graph g;
            try (Capture c = e.capture()) {
                step.run();
                g = c.graph();
            }
            Random rnd = new Random(7 + w);
            List<Read> reads = new ArrayList<>();
            for (int r = 0; r < steps; r++) {
                for (int k = 0; k < 2; k++) {
                    for (int d = 0; d < devs; d++) {
                        write(e, values[w][k][d], stepValue(lengths[k], w, r, d));
                    }
                }
                if (rnd.nextBoolean()) {
                    g.replay();
                } else {
                    step.run();
                }
                reads.add(readLater(e, outs[w][0]));
                reads.add(readLater(e, outs[w][1]));
            }
            for (int r = 0; r < steps; r++) {
                float[] both = Arrays.copyOf(reads.get(2 * r).get(), lengths[0] + lengths[1]);
                System.arraycopy(reads.get(2 * r + 1).get(), 0, both, lengths[0], lengths[1]);
                pulled[w][r] = both;
            }
        });
        if (synchronousRounds()) {
            for (int w = 0; w < workers; w++) {
                for (int r = 0; r < steps; r++) {
                    assertArrayEquals(sumOfSteps(lengths, workers, r), pulled[w][r], "rank " + w + ", step " + r
                            + " (keys step0 and step1)");
                }
            }
            return;
        }
        for (KVStore s : stores) { // dist_async: the final values, once every push has landed
            s.engine().waitForAll(BOUND);
        }
        barrierAll(stores);
        for (KVStore s : stores) {
            s.pull("step0", outs[s.rank()][0]);
            s.pull("step1", outs[s.rank()][1]);
            float[] both = Arrays.copyOf(read(s.engine(), outs[s.rank()][0]), lengths[0] + lengths[1]);
            System.arraycopy(read(s.engine(), outs[s.rank()][1]), 0, both, lengths[0], lengths[1]);
            assertArrayEquals(sumOfSteps(lengths, workers, steps - 1), both, "final values on rank " + s.rank());
        }
    }
    /**
     * The calls that cannot be recorded are refused inside a capture, naming the call and the capture,
     * without ending it or changing the store; the store's calls recorded after them replay as usual.
     */
    @Test
    void callsThatCannotBeRecordedAreRefusedInACaptureWithAClearMessage(@TempDir Path dir) {
        KeyW w = openWithKeyW();
        KVStore store = w.store();
        DeviceArray v = w.v();
        DeviceArray out = w.out();
        Graph g;
        try (Capture capture = engine.capture()) {
            List<Runnable> refused = List.of(
                    () -> store.init("x", v),
                    () -> store.setUpdater(Updater.sum()),
                    store::barrier,
                    store::endOfData,
                    () -> store.checkpoint(dir.resolve("cp")),
                    store::close);
            List<String> names = List.of("init('x')", "setUpdater(", "barrier()", "endOfData()", "checkpoint(", "close()");
            for (int i = 0; i < refused.size(); i++) {
                IllegalStateException e = assertThrows(IllegalStateException.class, refused.get(i)::run, names.get(i));
                assertContains(e, names.get(i), "records a capture", "push, pull and pushPull");
            }
            store.push("w", v);
            store.pull("w", out);
            g = capture.graph();
        }
        assertTrue(!store.isClosed(), "the refused close() left the store open");
        assertEquals(Set.of("w"), store.keys(), "the refused init registered nothing");
        assertEquals(0, store.period(), "the refused barrier began no period");
        assertArrayEquals(new float[] {-1, -1}, read(engine, out), "recording ran nothing");
        g.replay();
        assertArrayEquals(new float[] {5, 6}, read(engine, out), "the recorded push and pull, replayed");
        store.endOfData(); // not refused outside the capture, and the refused one changed nothing
        store.barrier();
    }
    /**
     * A producer of a pushed value that fails in replay k fails that replay's pull with its cause; the
     * replays before and after it give the serial values (the failed push contributes nothing). With
     * several workers (a store whose pulls see the whole round), another worker pushing directly every
     * step sees that round complete without the failed push, and the later rounds with it.
     */
    @Test
    void aFailingProducerInReplayKFailsThatReplaysPullAndTheOthersGiveTheSerialValues() {
        int workers = synchronousRounds() ? Math.min(2, workers()) : 1;
        int replays = 5;
        int failing = 3;
        List<KVStore> stores = openWorkers(workers);
        List<DeviceArray> outs = new ArrayList<>();
        List<DeviceArray> gs = new ArrayList<>();
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            init(s, "w", Context.cpu(), new float[] {1, 2});
            outs.add(array(s.engine(), Context.cpu(), 2, "out" + s.rank()));
            gs.add(array(s.engine(), Context.cpu(), 2, "g" + s.rank()));
        }
        RuntimeException boom = new RuntimeException("producer failed in replay " + failing + " for the test");
        AtomicInteger run = new AtomicInteger();
        Graph g;
        DeviceArray g0 = gs.get(0);
        ByteBuffer produced = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        produced.asFloatBuffer().put(new float[] {10, 20});
        Memcpy memcpy = g0.device().requirePrimitive(Memcpy.class);
        try (Capture c = engine.capture()) {
            engine.pushSync(rc -> {
                if (run.incrementAndGet() == failing) {
                    throw boom;
                }
                memcpy.hostToDevice(rc.stream(), produced.duplicate(), g0.buffer(), g0.offsetBytes());
            }, g0.context(), List.of(), List.of(g0.var()), FnProperty.NORMAL, 0, "test: producer");
            stores.get(0).push("w", gs.get(0));
            stores.get(0).pull("w", outs.get(0));
            g = c.graph();
        }
        float[] others = {0, 0};
        float[] own = {0, 0};
        for (int r = 1; r <= replays; r++) {
            for (KVStore s : stores.subList(1, workers)) {
                write(s.engine(), gs.get(s.rank()), new float[] {100, 200});
                s.push("w", gs.get(s.rank()));
                s.pull("w", outs.get(s.rank()));
                others = new float[] {others[0] + 100, others[1] + 200};
            }
            g.replay();
            if (r == failing) {
                EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(outs.get(0).var(), BOUND));
                assertSame(boom, e.getCause(), "replay " + r + ": the pull carries the producer's failure");
            } else {
                own = new float[] {own[0] + 10, own[1] + 20};
                float[] expected = {1 + own[0] + others[0], 2 + own[1] + others[1]};
                assertArrayEquals(expected, read(engine, outs.get(0)), "rank 0 after replay " + r);
            }
            for (KVStore s : stores.subList(1, workers)) {
                float[] expected = {1 + own[0] + others[0], 2 + own[1] + others[1]};
                assertArrayEquals(expected, read(s.engine(), outs.get(s.rank())), "rank " + s.rank() + " in round " + r);
            }
        }
    }
    /**
     * A replayed push after {@code endOfData()} cannot be refused at the call, so its send fails when it
     * runs, naming endOfData, and the failure reaches the replay's pull; after the next barrier the
     * graph pushes again.
     */
    @Test
    void aReplayedPushAfterEndOfDataFailsItsPullUntilTheNextBarrier() {
        KeyW w = openWithKeyW();
        Graph g;
        try (Capture capture = engine.capture()) {
            w.store().pushPull("w", List.of(w.v()), List.of(w.out()), 0);
            g = capture.graph();
        }
        w.store().endOfData();
        g.replay();
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(w.out().var(), BOUND));
        KVStoreException kv = findCause(e, KVStoreException.class);
        assertEquals("w", kv.key());
        assertContains(kv, "rank 0", "endOfData", "barrier");
        w.store().barrier();
        g.replay();
        assertArrayEquals(new float[] {5, 6}, read(engine, w.out()), "the replay after the barrier pushed");
    }

    /** The keys step0 and step1 (end to end) after step {@code r} of every worker: the serial sums. */
    private float[] sumOfSteps(int[] lengths, int workers, int r) {
        float[] expected = new float[lengths[0] + lengths[1]];
        for (int k = 0; k < 2; k++) {
            float[] v = ramp(lengths[k], 1);
            for (int rr = 0; rr <= r; rr++) {
                for (int w = 0; w < workers; w++) {
                    for (int d = 0; d < (k == 0 ? devices().size() : 1); d++) {
                        add(v, stepValue(lengths[k], w, rr, d));
                    }
                }
            }
            System.arraycopy(v, 0, expected, k == 0 ? 0 : lengths[0], lengths[k]);
        }
        return expected;
    }

    /** Worker {@code w}'s value of device {@code d} in step {@code r}: whole numbers, so every sum is exact. */
    private static float[] stepValue(int n, int w, int r, int d) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = 1000 * w + 100 * d + 10 * r + i;
        }
        return a;
    }

    /** One store with key "w" = {1, 2}, and two arrays of 2 floats on the first device: v = {5, 6}, out = {-1, -1}. */
    private record KeyW(KVStore store, DeviceArray v, DeviceArray out) {
    }

    private KeyW openWithKeyW() {
        KVStore store = openOne();
        Context c = devices().get(0);
        init(store, "w", c, new float[] {1, 2});
        DeviceArray v = array(engine, c, 2, "v");
        DeviceArray out = array(engine, c, 2, "out");
        write(engine, v, new float[] {5, 6});
        write(engine, out, new float[] {-1, -1});
        return new KeyW(store, v, out);
    }
}
