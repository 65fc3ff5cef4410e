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

/** Round trips of one worker: init, push and pull through arrays on several devices and at offsets, the sum of several values, in-place pushPull, and a randomized serial check. */
@Workers({1})
public abstract class BasicsSuite extends KVStoreSuite {
    // ------------------------------------------------------------------ round trips

    @Test
    void initThenPullGivesTheInitValueAndPushThenPullGivesThePushedValue() {
        KVStore store = openOne();
        assertEquals(0, store.rank());
        assertEquals(1, store.numWorkers());
        init(store, "w", devices().get(0), ramp(10, 1));
        DeviceArray out = array(engine, devices().get(0), 10, "out");
        store.pull("w", out);
        assertArrayEquals(ramp(10, 1), read(engine, out), "pull after init");

        DeviceArray g = array(engine, devices().get(0), 10, "g");
        write(engine, g, ramp(10, 100));
        store.push("w", g);
        store.pull("w", out);
        assertArrayEquals(ramp(10, 100), read(engine, out), "with no updater the stored value becomes the push");
        assertEquals(Set.of("w"), store.keys());
        assertEquals(10, store.length("w"));
    }
    @Test
    void severalKeysOfDifferentLengthsPullIntoEveryDevicesArrays() {
        KVStore store = openOne();
        int[] lengths = {1, 7, 300, 4096};
        for (int i = 0; i < lengths.length; i++) {
            init(store, "layer" + i, devices().get(i % devices().size()), ramp(lengths[i], 10 * i));
        }
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < lengths.length; i++) {
            List<DeviceArray> outs = new ArrayList<>();
            for (Context c : devices()) {
                outs.add(array(engine, c, lengths[i], "layer" + i + ".out"));
            }
            store.pull("layer" + i, outs, -i);
            for (DeviceArray o : outs) {
                reads.add(readLater(engine, o));
            }
        }
        int r = 0;
        for (int i = 0; i < lengths.length; i++) {
            for (int d = 0; d < devices().size(); d++) {
                assertArrayEquals(ramp(lengths[i], 10 * i), reads.get(r++).get(), "layer" + i + " on " + devices().get(d));
            }
        }
    }
    @Test
    void arraysAtAnOffsetInALargerBufferArePushedAndPulled() {
        KVStore store = openOne();
        Context c = devices().get(0);
        DeviceBuffer big = Devices.device(c).allocate(4L * 30);
        buffers.add(big);
        VarHandle bigVar = engine.newVariable("big");
        DeviceArray whole = new DeviceArray(big, bigVar);
        write(engine, whole, ramp(30, 0));
        DeviceArray middle = new DeviceArray(big, bigVar, 10, 10);
        store.init("mid", middle);
        DeviceArray out = array(engine, c, 10, "out");
        store.pull("mid", out);
        assertArrayEquals(ramp(10, 10), read(engine, out));
        DeviceArray tail = new DeviceArray(big, bigVar, 20, 10);
        store.pull("mid", tail);
        float[] expected = ramp(30, 0);
        System.arraycopy(ramp(10, 10), 0, expected, 20, 10);
        assertArrayEquals(expected, read(engine, whole), "only floats 20..29 were written");
    }
    @Test
    void valuesOfSeveralDevicesAreSummedInOnePush() {
        KVStore store = openOne();
        int n = 33;
        init(store, "k", devices().get(0), new float[n]);
        List<DeviceArray> values = new ArrayList<>();
        float[] expected = new float[n];
        for (int d = 0; d < devices().size(); d++) {
            DeviceArray v = array(engine, devices().get(d), n, "v" + d);
            float[] data = ramp(n, 1000 * (d + 1));
            write(engine, v, data);
            for (int i = 0; i < n; i++) {
                expected[i] += data[i];
            }
            values.add(v);
        }
        DeviceArray same = values.get(0); // one array twice counts twice
        values.add(same);
        for (int i = 0; i < n; i++) {
            expected[i] += 1000 + i;
        }
        List<DeviceArray> outs = new ArrayList<>();
        for (Context c : devices()) {
            outs.add(array(engine, c, n, "out"));
        }
        store.push("k", values, 0);
        store.pull("k", outs, 0);
        for (DeviceArray o : outs) {
            assertArrayEquals(expected, read(engine, o), "sum pulled into " + o);
        }
    }
    @Test
    void pushPullInPlaceReplacesTheValuesWithTheResult() {
        KVStore store = openOne();
        store.setUpdater(Updater.sum());
        init(store, "k", devices().get(0), ramp(5, 1));
        List<DeviceArray> grads = new ArrayList<>();
        for (Context c : devices()) {
            DeviceArray g = array(engine, c, 5, "g");
            write(engine, g, ramp(5, 10));
            grads.add(g);
        }
        store.pushPull("k", grads, grads, 0);
        float[] expected = new float[5];
        for (int i = 0; i < 5; i++) {
            expected[i] = (1 + i) + devices().size() * (10 + i);
        }
        for (DeviceArray g : grads) {
            assertArrayEquals(expected, read(engine, g), "pushPull in place on " + g);
        }
    }
    @Test
    void anArrayPushedAndOverwrittenAtOnceIsPushedWithItsValueAtThePush() {
        KVStore store = openOne();
        store.setUpdater(Updater.sum());
        init(store, "k", devices().get(0), new float[4]);
        DeviceArray v = array(engine, devices().get(0), 4, "v");
        for (int r = 1; r <= 20; r++) {
            write(engine, v, new float[] {r, r, r, r});
            store.push("k", v); // no wait: the next write must run after this push read v
        }
        DeviceArray out = array(engine, devices().get(0), 4, "out");
        store.pull("k", out);
        assertArrayEquals(new float[] {210, 210, 210, 210}, read(engine, out), "Σ 1..20 from pushes made without waits");
    }
    // ------------------------------------------------------------------ ordering

    /**
     * Random interleavings of writes of pushed arrays, pushes, pulls, pushPulls and reads of the pulled
     * arrays by later ops, with no waits in between, against a serial oracle of the same calls.
     */
    @Test
    void pushesPullsAndReadsEqualASerialRunInCallOrder() {
        for (long seed : new long[] {1, 2, 3}) {
            runRandomized(seed, 300);
        }
    }

    private void runRandomized(long seed, int steps) {
        KVStore store = openOne();
        store.setUpdater(Updater.sum()); // the stored value accumulates: any reordering shows
        Random rnd = new Random(seed);
        int[] lengths = {3, 17, 64};
        int keys = lengths.length;
        int devs = devices().size();
        DeviceArray[][] values = new DeviceArray[keys][devs];
        DeviceArray[][] outs = new DeviceArray[keys][devs];
        float[][][] valueData = new float[keys][devs][];
        float[][][] outData = new float[keys][devs][];
        float[][] stored = new float[keys][];
        for (int k = 0; k < keys; k++) {
            stored[k] = randomInts(rnd, lengths[k]);
            init(store, "r" + seed + "k" + k, devices().get(k % devs), stored[k]);
            for (int d = 0; d < devs; d++) {
                values[k][d] = array(engine, devices().get(d), lengths[k], "value" + k);
                valueData[k][d] = randomInts(rnd, lengths[k]);
                write(engine, values[k][d], valueData[k][d]);
                outs[k][d] = array(engine, devices().get(d), lengths[k], "out" + k);
                outData[k][d] = new float[lengths[k]];
                write(engine, outs[k][d], outData[k][d]);
            }
        }
        List<Read> reads = new ArrayList<>();
        List<float[]> expected = new ArrayList<>();
        List<String> what = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            int k = rnd.nextInt(keys);
            int d = rnd.nextInt(devs);
            String key = "r" + seed + "k" + k;
            List<Integer> subset = subset(rnd, devs);
            switch (rnd.nextInt(5)) {
                case 0 -> {
                    valueData[k][d] = randomInts(rnd, lengths[k]);
                    write(engine, values[k][d], valueData[k][d]);
                }
                case 1 -> {
                    List<DeviceArray> vs = new ArrayList<>();
                    for (int s : subset) {
                        vs.add(values[k][s]);
                        add(stored[k], valueData[k][s]);
                    }
                    store.push(key, vs, rnd.nextInt(5) - 2);
                }
                case 2 -> {
                    List<DeviceArray> os = new ArrayList<>();
                    for (int s : subset) {
                        os.add(outs[k][s]);
                        outData[k][s] = stored[k].clone();
                    }
                    store.pull(key, os, rnd.nextInt(5) - 2);
                }
                case 3 -> {
                    List<DeviceArray> vs = new ArrayList<>();
                    for (int s : subset) {
                        vs.add(values[k][s]);
                        add(stored[k], valueData[k][s]);
                    }
                    List<DeviceArray> os = new ArrayList<>();
                    for (int s : subset(rnd, devs)) {
                        os.add(outs[k][s]);
                        outData[k][s] = stored[k].clone();
                    }
                    store.pushPull(key, vs, os, 0);
                }
                default -> {
                    reads.add(readLater(engine, outs[k][d]));
                    expected.add(outData[k][d].clone());
                    what.add("seed " + seed + " step " + step + ": read of out " + k + " on " + devices().get(d));
                }
            }
        }
        for (int i = 0; i < reads.size(); i++) {
            assertArrayEquals(expected.get(i), reads.get(i).get(), what.get(i));
        }
        for (int k = 0; k < keys; k++) {
            DeviceArray last = array(engine, devices().get(0), lengths[k], "final" + k);
            store.pull("r" + seed + "k" + k, last);
            assertArrayEquals(stored[k], read(engine, last), "seed " + seed + ": final value of key " + k);
        }
    }

    private static List<Integer> subset(Random rnd, int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        Collections.shuffle(all, rnd);
        return all.subList(0, 1 + rnd.nextInt(n));
    }
}
