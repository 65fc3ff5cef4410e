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
import java.util.concurrent.CompletableFuture;
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

/** Rounds of several workers: sync rounds, end of data, barriers, and the no-wait contract against a serial model. */
@Workers({1, 2, 3})
public abstract class RoundsSuite extends KVStoreSuite {
    // ------------------------------------------------------------------ several workers

    @Test
    @Needs(workers = 2, syncRounds = true)
    void aSyncRoundSumsEveryWorkersPush() {
        int workers = workers();
        List<KVStore> stores = openWorkers(workers);
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            init(s, "w", Context.cpu(), new float[] {1, 1});
        }
        for (int round = 1; round <= 3; round++) {
            for (KVStore s : stores) {
                DeviceArray g = array(s.engine(), Context.cpu(), 2, "g");
                write(s.engine(), g, new float[] {s.rank() + 1, round});
                s.push("w", g);
            }
            float expectedFirst = 1 + round * workers * (workers + 1) / 2f;
            float expectedSecond = 1 + workers * (round * (round + 1) / 2f);
            for (KVStore s : stores) {
                DeviceArray out = array(s.engine(), Context.cpu(), 2, "out");
                s.pull("w", out);
                assertArrayEquals(new float[] {expectedFirst, expectedSecond}, read(s.engine(), out),
                        "round " + round + " on rank " + s.rank());
            }
        }
    }
    @Test
    @Needs(workers = 2, syncRounds = true)
    void aWorkerAtEndOfDataDoesNotHoldUpTheRound() {
        List<KVStore> stores = openWorkers(2);
        for (KVStore s : stores) {
            init(s, "w", Context.cpu(), new float[] {0});
        }
        stores.get(1).endOfData();
        KVStore s0 = stores.get(0);
        DeviceArray g = array(s0.engine(), Context.cpu(), 1, "g");
        write(s0.engine(), g, new float[] {4});
        s0.push("w", g);
        DeviceArray out = array(s0.engine(), Context.cpu(), 1, "out");
        s0.pull("w", out);
        assertArrayEquals(new float[] {4}, read(s0.engine(), out), "the round completed without rank 1");

        // the next period: every worker meets at the barrier, then both count again
        barrierAll(stores);
        for (KVStore s : stores) {
            DeviceArray v = array(s.engine(), Context.cpu(), 1, "v");
            write(s.engine(), v, new float[] {10 * (s.rank() + 1)});
            s.push("w", v);
        }
        for (KVStore s : stores) {
            DeviceArray o = array(s.engine(), Context.cpu(), 1, "o");
            s.pull("w", o);
            assertArrayEquals(new float[] {30}, read(s.engine(), o), "the round after the barrier, on rank " + s.rank());
        }
    }
    @Test
    @Needs(workers = 2)
    void aBarrierReturnsOnceEveryWorkerHasCalledIt() throws Exception {
        List<KVStore> stores = openWorkers(2);
        Thread first = new Thread(stores.get(0)::barrier, "barrier-rank0");
        first.start();
        awaitThread(first, s -> s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING,
                "rank 0 to wait in barrier()");
        assertTrue(first.isAlive(), "rank 0 left the barrier before rank 1 arrived");
        stores.get(1).barrier();
        joinBounded(first);
    }
    /**
     * MXNet's loop with no wait at all: every worker calls {@code push(k); pull(k); barrier()}. The pull
     * is of the round this worker's push made (its ops take it before the barrier's mark, in call order), so it sees
     * every worker's push of that round ({@code dist_async}: at least its own), and the barrier after it
     * neither blocks the pull nor changes its round.
     */
    @Test
    @Needs(workers = 2)
    void aPullCalledBeforeABarrierWithNoWaitSeesTheRoundOfItsPush() {
        List<KVStore> stores = openWorkers(2);
        List<DeviceArray> outs = new ArrayList<>();
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            init(s, "w", Context.cpu(), new float[] {1});
            outs.add(array(s.engine(), Context.cpu(), 1, "out" + s.rank()));
        }
        Read[] reads = new Read[2]; // written by the worker threads, read after they are joined
        eachWorker(stores, s -> {
            DeviceArray g = array(s.engine(), Context.cpu(), 1, "g" + s.rank());
            write(s.engine(), g, new float[] {10 * (s.rank() + 1)});
            s.push("w", g);
            s.pull("w", outs.get(s.rank()));
            reads[s.rank()] = readLater(s.engine(), outs.get(s.rank()));
            s.barrier();
        });
        for (KVStore s : stores) {
            float got = reads[s.rank()].get()[0];
            if (synchronousRounds()) {
                assertEquals(31, got, "rank " + s.rank() + ": the round of both pushes");
            } else {
                float own = 1 + 10 * (s.rank() + 1);
                assertTrue(got == own || got == 31, "rank " + s.rank() + " pulled " + got + ", expected " + own + " or 31");
            }
        }
    }
    // ------------------------------------------------------------------ the no-wait contract

    /**
     * Random programs of {@code init}, {@code push}, {@code pull}, {@code pushPull}, {@code endOfData} and
     * {@code barrier} calls on as many workers as the store has (up to 3), each worker's calls made on a
     * thread of its own with no wait at all, give the values of a serial model ({@link NoWaitProgram}):
     * every call's ops take their rounds in call order. Keys are split where the store splits them
     * ({@link #splitFloats()}). A {@code dist_async} pull is checked chunk by chunk: each chunk of a split
     * key is a value the model allows, but the chunks may hold different prefixes of the other workers'
     * pushes (no snapshot across chunks, as none across keys). Two seeds here, 25 with
     * {@code -Ddepengine.test.long=true}.
     */
    @Test
    void callsMadeWithNoWaitsGiveTheValuesOfTheSerialModel() {
        int seeds = Boolean.getBoolean("depengine.test.long") ? 25 : 2;
        for (long seed = 1; seed <= seeds; seed++) {
            runWithNoWaits(seed, false);
        }
    }
    /**
     * The same programs with every other {@code push}, {@code pull} and {@code pushPull} call (with its
     * write and its read) recorded in a capture and made by replaying the graph, among the direct calls,
     * barriers and endOfData calls: a replayed call decides its round when its ops run, and must give the
     * values of the call made directly. One seed here, 10 with {@code -Ddepengine.test.long=true}.
     */
    @Test
    void callsReplayedFromCapturesAmongDirectCallsGiveTheValuesOfTheSerialModel() {
        int seeds = Boolean.getBoolean("depengine.test.long") ? 10 : 1;
        for (long seed = 1; seed <= seeds; seed++) {
            runWithNoWaits(100 + seed, true);
        }
    }

    /** Makes {@code calls} directly, or (if {@code replayed}) records them in a capture of {@code e} and replays the graph once. */
    private static void made(Engine e, boolean replayed, Runnable calls) {
        if (!replayed) {
            calls.run();
            return;
        }
        Graph g;
        try (Capture c = e.capture()) {
            calls.run();
            g = c.graph();
        }
        g.replay();
    }

    private void runWithNoWaits(long seed, boolean replayEveryOther) {
        int workers = workers();
        NoWaitProgram program = NoWaitProgram.generate(seed, workers, synchronousRounds());
        List<KVStore> stores = openWorkers(workers,
                splitFloats() == 0 ? Map.of() : Map.of("splitFloats", Integer.toString(splitFloats())));
        int keys = NoWaitProgram.LENGTHS.length;
        DeviceArray[][] values = new DeviceArray[workers][keys];
        DeviceArray[][] outs = new DeviceArray[workers][keys];
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            for (int k = 0; k < keys; k++) {
                Context c = devices().get((s.rank() + k) % devices().size());
                values[s.rank()][k] = array(s.engine(), c, NoWaitProgram.LENGTHS[k], "value" + k);
                outs[s.rank()][k] = array(s.engine(), c, NoWaitProgram.LENGTHS[k], "out" + k);
            }
        }
        List<List<Read>> pulled = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            pulled.add(new ArrayList<>()); // each filled by its worker's thread, read after the threads are joined
        }
        eachWorker(stores, s -> {
            int w = s.rank();
            int counted = 0;
            for (NoWaitProgram.Call c : program.calls(w)) {
                String key = "nowait" + c.key();
                boolean replayed = replayEveryOther && counted++ % 2 == 1;
                DeviceArray v = c.key() < 0 ? null : values[w][c.key()];
                DeviceArray out = c.key() < 0 ? null : outs[w][c.key()];
                switch (c.kind()) {
                    case INIT -> {
                        DeviceArray a = array(s.engine(), v.context(), c.data().length, key + ".init");
                        write(s.engine(), a, c.data());
                        s.init(key, a);
                    }
                    case PUSH -> made(s.engine(), replayed, () -> {
                        write(s.engine(), v, c.data());
                        s.push(key, v, c.priority());
                    });
                    case PULL -> made(s.engine(), replayed, () -> {
                        s.pull(key, out, c.priority());
                        pulled.get(w).add(readLater(s.engine(), out));
                    });
                    case PUSH_PULL -> made(s.engine(), replayed, () -> {
                        write(s.engine(), v, c.data());
                        s.pushPull(key, List.of(v), List.of(out), c.priority());
                        pulled.get(w).add(readLater(s.engine(), out));
                    });
                    case END_OF_DATA -> s.endOfData();
                    case BARRIER -> s.barrier();
                    default -> throw new AssertionError(c);
                }
            }
        });
        for (int w = 0; w < workers; w++) {
            List<List<float[]>> expected = program.expectedPulls(w);
            assertEquals(expected.size(), pulled.get(w).size(), "pulls of rank " + w);
            for (int i = 0; i < expected.size(); i++) {
                float[] got = pulled.get(w).get(i).get();
                int chunk = synchronousRounds() || splitFloats() == 0 ? got.length : splitFloats();
                for (int from = 0; from < got.length; from += chunk) {
                    int f = from;
                    int to = Math.min(got.length, from + chunk);
                    assertTrue(expected.get(i).stream().anyMatch(e -> Arrays.equals(e, f, to, got, f, to)),
                            "seed " + seed + ", rank " + w + ", pull " + i + " gave " + Arrays.toString(got)
                                    + (chunk < got.length ? " (floats " + f + ".." + (to - 1) + " checked)" : "")
                                    + "; the model allows " + describe(expected.get(i)));
                }
            }
        }
        // Every push has landed once each worker's ops are done (dist_async: a barrier is no fence).
        for (KVStore s : stores) {
            s.engine().waitForAll(BOUND);
        }
        barrierAll(stores);
        for (KVStore s : stores) {
            for (int k = 0; k < keys; k++) {
                s.pull("nowait" + k, outs[s.rank()][k]);
                assertArrayEquals(program.finalValue(k), read(s.engine(), outs[s.rank()][k]),
                        "seed " + seed + ": final value of key " + k + " on rank " + s.rank());
            }
        }
    }

    private static String describe(List<float[]> values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(values.size(), 5); i++) {
            sb.append(i == 0 ? "" : " or ").append(Arrays.toString(values.get(i)));
        }
        return values.size() > 5 ? sb + " (" + values.size() + " values in all)" : sb.toString();
    }

    /**
     * Uneven batch counts: rank 1 runs out of data after two rounds and says so; rank 0's third round
     * completes without it; after the barrier both are in step again (a pull before any push of the new
     * period sees the whole previous one).
     */
    @Test
    @Needs(workers = 2, syncRounds = true)
    void unevenBatchesFinishTheirRoundsAndTheWorkersRealignAtTheBarrier() throws Exception {
        List<KVStore> stores = openWorkers(2);
        List<DeviceArray> values = new ArrayList<>();
        for (KVStore s : stores) {
            s.setUpdater(Updater.sum());
            DeviceArray v = array(s.engine(), Context.cpu(), 1, "v" + s.rank());
            write(s.engine(), v, new float[] {0});
            s.init("w", v);
            values.add(v);
        }
        KVStore s0 = stores.get(0);
        KVStore s1 = stores.get(1);
        for (float x : new float[] {1, 2, 3}) {
            write(s0.engine(), values.get(0), new float[] {x});
            s0.push("w", values.get(0));
        }
        for (float x : new float[] {10, 20}) {
            write(s1.engine(), values.get(1), new float[] {x});
            s1.push("w", values.get(1));
        }
        s1.endOfData();
        DeviceArray out0 = array(s0.engine(), Context.cpu(), 1, "out0");
        s0.pull("w", out0);
        assertArrayEquals(new float[] {36}, read(s0.engine(), out0), "round 3 completed without rank 1");

        CompletableFuture<Void> other = CompletableFuture.runAsync(s1::barrier);
        s0.barrier();
        other.get(60, TimeUnit.SECONDS);
        DeviceArray out1 = array(s1.engine(), Context.cpu(), 1, "out1");
        s1.pull("w", out1);
        assertArrayEquals(new float[] {36}, read(s1.engine(), out1), "after the barrier rank 1 sees rank 0's last round");

        write(s0.engine(), values.get(0), new float[] {100});
        s0.push("w", values.get(0));
        write(s1.engine(), values.get(1), new float[] {1000});
        s1.push("w", values.get(1));
        s0.pull("w", out0);
        s1.pull("w", out1);
        assertArrayEquals(new float[] {1136}, read(s0.engine(), out0));
        assertArrayEquals(new float[] {1136}, read(s1.engine(), out1));
    }
}
