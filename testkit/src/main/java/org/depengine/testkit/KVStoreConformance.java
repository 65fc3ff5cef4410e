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

/**
 * The conformance suite every {@link KVStore} implementation passes. A store module extends it in a
 * few lines: the engine to run on ({@link #engineName()}, {@link #settings()}) and how to open stores
 * ({@link #openStores}). Cases that need several workers run when {@link #maxWorkers()} allows, and
 * say so with an assumption otherwise.
 *
 * <p>Values are whole numbers below 2^20, so every sum is exact whatever the order: results are
 * compared with a serial oracle for equality.
 */
public abstract class KVStoreConformance extends EngineTestBase {

    /** The stores opened by the test, closed after it. */
    private final List<KVStore> opened = new ArrayList<>();
    /** The extra engines of multi-worker cases, closed after the stores. */
    private final List<Engine> extraEngines = new ArrayList<>();
    /** Synchronized: workers' threads allocate arrays too. */
    private final List<DeviceBuffer> buffers = Collections.synchronizedList(new ArrayList<>());

    /**
     * Opens one store per engine, all of one store (one cluster, a job of its own): worker {@code i} has
     * rank {@code i}, pushes its ops to {@code engines.get(i)}, and the store counts {@code engines.size()}
     * workers. An implementation whose stores must start together (a cluster forming) opens them
     * concurrently.
     *
     * @param engines one per worker, at least one, at most {@link #maxWorkers()}
     * @param settings settings by short name that every store is opened with on top of the
     *     implementation's own (e.g. {@code resume}, {@code splitFloats}); empty for most cases
     */
    protected abstract List<KVStore> openStores(List<Engine> engines, Map<String, String> settings);

    /**
     * The chunk size the no-wait case opens its stores with (as setting {@code splitFloats}), small enough
     * that some of its keys are split; 0 (the default) where the store keeps every key whole and is given
     * no such setting.
     */
    protected int splitFloats() {
        return 0;
    }

    /** The most workers the store supports in one test; 1 for {@code local}. */
    protected int maxWorkers() {
        return 1;
    }

    /**
     * Whether a pull after a push of every worker sees the whole round ({@code local} and
     * {@code dist_sync}: yes; {@code dist_async}: no, only this worker's pushes are sure to be in).
     */
    protected boolean synchronousRounds() {
        return true;
    }

    /**
     * Whether the engine under test runs ready {@link FnProperty#CPU_PRIORITIZED} ops by priority on a
     * single worker, as {@link #settings()} must then configure ({@code perdevice} with
     * {@code depengine.cpu.priorityWorkers=1}); {@code naive} and {@code pooled} ignore priorities.
     */
    protected boolean ordersByPriority() {
        return "perdevice".equals(engineName());
    }

    /** The devices values and outs are spread over; the default is {@code cpu:0} and {@code cpu:1}. */
    protected List<Context> devices() {
        return List.of(Context.cpu(0), Context.cpu(1));
    }

    /** One store on the test's engine. */
    protected final KVStore openOne() {
        List<KVStore> stores = openStores(List.of(engine), Map.of());
        opened.addAll(stores);
        assertEquals(1, stores.size(), "openStores(1 engine) must return one store");
        return stores.get(0);
    }

    /** {@code workers} stores of one cluster, worker 0 on the test's engine, the others on engines of their own. */
    protected final List<KVStore> openWorkers(int workers) {
        return openWorkers(workers, Map.of());
    }

    /** As {@link #openWorkers(int)}, every store opened with {@code settings} (short names) too. */
    protected final List<KVStore> openWorkers(int workers, Map<String, String> settings) {
        List<Engine> engines = new ArrayList<>();
        engines.add(engine);
        for (int i = 1; i < workers; i++) {
            Engine e = newEngine();
            extraEngines.add(e);
            engines.add(e);
        }
        List<KVStore> stores = openStores(engines, settings);
        opened.addAll(stores);
        assertEquals(workers, stores.size(), "openStores must return one store per engine");
        for (int i = 0; i < workers; i++) {
            assertEquals(i, stores.get(i).rank(), "rank of store " + i);
            assertEquals(workers, stores.get(i).numWorkers(), "numWorkers of store " + i);
            assertSame(engines.get(i), stores.get(i).engine(), "engine of store " + i);
        }
        return stores;
    }

    @AfterEach
    void closeStores() {
        for (KVStore s : opened) {
            s.close();
        }
        opened.clear();
        for (Engine e : extraEngines) {
            e.close();
        }
        extraEngines.clear();
        for (DeviceBuffer b : buffers) {
            b.close();
        }
        buffers.clear();
    }

    // ------------------------------------------------------------------ arrays

    /** A new array of {@code n} floats on {@code ctx}, guarded by a new variable of {@code e}. */
    protected final DeviceArray array(Engine e, Context ctx, int n, String name) {
        DeviceBuffer b = Devices.device(ctx).allocate(4L * n);
        buffers.add(b);
        return new DeviceArray(b, e.newVariable(name + "@" + ctx));
    }

    /** Pushes an op that writes {@code data} into {@code a} (a copy of {@code data} is taken now). */
    protected static void write(Engine e, DeviceArray a, float[] data) {
        ByteBuffer host = ByteBuffer.allocateDirect(4 * data.length).order(ByteOrder.nativeOrder());
        host.asFloatBuffer().put(data);
        Memcpy memcpy = a.device().requirePrimitive(Memcpy.class);
        e.pushSync(rc -> memcpy.hostToDevice(rc.stream(), host.duplicate(), a.buffer(), a.offsetBytes()), a.context(),
                List.of(), List.of(a.var()), FnProperty.COPY_TO_DEVICE, 0, "test: write " + a);
    }

    /** Reads {@code a} later: an op that reads its variable copies it out; {@link Read#get()} after a wait. */
    protected static Read readLater(Engine e, DeviceArray a) {
        ByteBuffer host = ByteBuffer.allocateDirect((int) a.byteLength()).order(ByteOrder.nativeOrder());
        VarHandle done = e.newVariable("test: read of " + a);
        Memcpy memcpy = a.device().requirePrimitive(Memcpy.class);
        e.pushSync(rc -> memcpy.deviceToHost(rc.stream(), a.buffer(), a.offsetBytes(), host.duplicate()), a.context(),
                List.of(a.var()), List.of(done), FnProperty.COPY_FROM_DEVICE, 0, "test: read " + a);
        return new Read(e, done, host);
    }

    /** Waits for {@code a}'s pending writes and returns its floats. */
    protected static float[] read(Engine e, DeviceArray a) {
        return readLater(e, a).get();
    }

    /** A pending read of an array. */
    protected static final class Read {
        private final Engine engine;
        private final VarHandle done;
        private final ByteBuffer host;

        Read(Engine engine, VarHandle done, ByteBuffer host) {
            this.engine = engine;
            this.done = done;
            this.host = host;
        }

        /** Waits (bounded) for the read and returns the floats. */
        public float[] get() {
            engine.waitForVar(done, BOUND);
            FloatBuffer f = host.duplicate().order(host.order()).asFloatBuffer();
            float[] out = new float[f.remaining()];
            f.get(out);
            return out;
        }
    }

    private static float[] ramp(int n, float start) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = start + i;
        }
        return a;
    }

    private static float[] randomInts(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(2001) - 1000;
        }
        return a;
    }

    /** Initialises {@code key} on {@code store} with {@code data}, through an array on {@code ctx}. */
    private void init(KVStore store, String key, Context ctx, float[] data) {
        DeviceArray a = array(store.engine(), ctx, data.length, key + ".init");
        write(store.engine(), a, data);
        store.init(key, a);
    }

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

    // ------------------------------------------------------------------ updater

    @Test
    void theUpdaterRunsOnEveryPushWithTheSumAndTheStoredValue() {
        KVStore store = openOne();
        store.setUpdater(Updater.sgd(0.5f));
        init(store, "w", devices().get(0), new float[] {10, 20, 30});
        List<DeviceArray> grads = new ArrayList<>();
        for (Context c : devices()) {
            DeviceArray g = array(engine, c, 3, "g");
            write(engine, g, new float[] {1, 2, 4});
            grads.add(g);
        }
        for (int step = 0; step < 3; step++) {
            store.push("w", grads, 0);
        }
        DeviceArray out = array(engine, devices().get(0), 3, "out");
        store.pull("w", out);
        float k = 3 * 0.5f * devices().size();
        assertArrayEquals(new float[] {10 - k, 20 - 2 * k, 30 - 4 * k}, read(engine, out), "w -= lr · Σ grads, 3 steps");
    }

    @Test
    void aCustomUpdaterSeesTheKeyTheMergedSumAndTheStoredValue() {
        KVStore store = openOne();
        store.setUpdater(new ScaledSum(2));
        init(store, "a", devices().get(0), new float[] {1, 1});
        init(store, "b", devices().get(0), new float[] {5, 5});
        DeviceArray v = array(engine, devices().get(0), 2, "v");
        write(engine, v, new float[] {3, 4});
        store.push("a", v);
        store.push("b", v);
        DeviceArray out = array(engine, devices().get(0), 2, "out");
        store.pull("a", out);
        assertArrayEquals(new float[] {1 + 6, 1 + 8}, read(engine, out));
        store.pull("b", out);
        assertArrayEquals(new float[] {5 + 6 + 100, 5 + 8 + 100}, read(engine, out), "the updater saw key 'b'");
    }

    /** {@code stored += factor · merged}, plus 100 on key "b": a serializable updater with state. */
    static final class ScaledSum implements Updater {
        private static final long serialVersionUID = 1L;
        private final float factor;

        ScaledSum(float factor) {
            this.factor = factor;
        }

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            for (int i = 0; i < stored.limit(); i++) {
                stored.put(i, stored.get(i) + factor * merged.get(i) + ("b".equals(key) ? 100 : 0));
            }
        }
    }

    /** Fails on every call: a store's own failure. */
    static final class FailingUpdater implements Updater {
        private static final long serialVersionUID = 1L;

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            throw new IllegalStateException("updater failure for the test");
        }
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

    private static void add(float[] acc, float[] x) {
        for (int i = 0; i < acc.length; i++) {
            acc[i] += x[i];
        }
    }

    // ------------------------------------------------------------------ priorities

    /**
     * Pulls of several keys queued behind a busy single priority worker come back highest priority
     * first. Deterministic: the pulls' copies are all ready before the worker is freed.
     */
    @Test
    void pullsQueuedTogetherRunHighestPriorityFirst() throws Exception {
        assumeTrue(ordersByPriority(), "engine '" + engineName() + "' does not order ready ops by priority on a single "
                + "worker (only perdevice with depengine.cpu.priorityWorkers=1 does)");
        KVStore store = openOne();
        int[] priorities = {3, -1, 7, 0, 5, -4};
        List<DeviceArray> outs = new ArrayList<>();
        for (int i = 0; i < priorities.length; i++) {
            init(store, "p" + i, Context.cpu(), new float[] {i});
            outs.add(array(engine, Context.cpu(), 1, "out" + i));
        }
        engine.waitForAll(BOUND);
        List<VarHandle> outVars = new ArrayList<>();
        for (DeviceArray o : outs) {
            outVars.add(o.var());
        }
        List<Integer> startOrder = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger ready = new AtomicInteger();
        OpListener listener = new OpListener() {
            @Override
            public void ready(OpInfo op, long nanoTime) {
                if (writesAnOut(op)) {
                    ready.incrementAndGet();
                }
            }

            @Override
            public void started(OpInfo op, long nanoTime) {
                if (writesAnOut(op)) {
                    startOrder.add(op.priority());
                }
            }

            private boolean writesAnOut(OpInfo op) {
                for (VarHandle v : op.writes()) {
                    if (outVars.contains(v)) {
                        return true;
                    }
                }
                return false;
            }
        };
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        engine.pushSync(rc -> {
            started.countDown();
            assertTrue(release.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "blocker never released");
        }, Context.cpu(), List.of(), List.of(engine.newVariable("blocker")), FnProperty.CPU_PRIORITIZED, Integer.MAX_VALUE,
                "test: occupy the priority worker");
        assertTrue(started.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "the blocker did not start");
        engine.addListener(listener);
        try {
            for (int i = 0; i < priorities.length; i++) {
                store.pull("p" + i, outs.get(i), priorities[i]);
            }
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (ready.get() < priorities.length) {
                assertTrue(System.nanoTime() < deadline, "the pulls' copies never became ready: " + ready.get());
                Thread.onSpinWait();
            }
            release.countDown();
            engine.waitForAll(BOUND);
        } finally {
            release.countDown();
            engine.removeListener(listener);
        }
        assertEquals(List.of(7, 5, 3, 0, -1, -4), startOrder, "pulls ran out of priority order");
        for (int i = 0; i < priorities.length; i++) {
            assertArrayEquals(new float[] {i}, read(engine, outs.get(i)));
        }
    }

    // ------------------------------------------------------------------ bad input

    @Test
    void badInputIsRefusedAtTheCallWithAClearMessage() {
        KVStore store = openOne();
        Context c = devices().get(0);
        init(store, "w", c, new float[4]);
        DeviceArray four = array(engine, c, 4, "four");
        DeviceArray three = array(engine, c, 3, "three");

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> store.push("nope", four));
        assertContains(unknown, "nope", "init");
        unknown = assertThrows(IllegalArgumentException.class, () -> store.pull("nope", four));
        assertContains(unknown, "nope");
        assertThrows(IllegalArgumentException.class, () -> store.length("nope"));

        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class, () -> store.push("w", four, three));
        assertContains(shape, "'w'", "3", "4");
        shape = assertThrows(IllegalArgumentException.class, () -> store.pull("w", three));
        assertContains(shape, "'w'", "3", "4");
        shape = assertThrows(IllegalArgumentException.class,
                () -> store.pushPull("w", List.of(four), List.of(three), 0));
        assertContains(shape, "'w'", "3");

        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> store.init("w", four));
        assertContains(twice, "'w'", "already");
        assertThrows(IllegalArgumentException.class, () -> store.init("", four));
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> store.push("w", List.of(), 0));
        assertContains(empty, "empty");
        assertThrows(IllegalArgumentException.class, () -> store.pull("w", List.of(), 0));

        assertThrows(NullPointerException.class, () -> store.push(null, four));
        assertThrows(NullPointerException.class, () -> store.push("w", (List<DeviceArray>) null, 0));
        assertThrows(NullPointerException.class, () -> store.push("w", (DeviceArray) null, 0));
        List<DeviceArray> withNull = new ArrayList<>();
        withNull.add(four);
        withNull.add(null);
        NullPointerException npe = assertThrows(NullPointerException.class, () -> store.pull("w", withNull, 0));
        assertContains(npe, "[1]");
        assertThrows(NullPointerException.class, () -> store.init("x", null));
        assertThrows(NullPointerException.class, () -> store.init(null, four));
        assertThrows(NullPointerException.class, () -> store.setUpdater(null));

        assertEquals(Set.of("w"), store.keys(), "refused calls registered nothing");

        store.push("w", four);
        IllegalStateException late = assertThrows(IllegalStateException.class, () -> store.setUpdater(Updater.sum()));
        assertContains(late, "push");
    }

    @Test
    void afterEndOfDataPushesAreRefusedUntilTheNextBarrierAndPullsStillWork() {
        KVStore store = openOne();
        init(store, "w", devices().get(0), new float[] {1, 2});
        DeviceArray v = array(engine, devices().get(0), 2, "v");
        write(engine, v, new float[] {5, 6});
        store.endOfData();
        store.endOfData(); // idempotent
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> store.push("w", v));
        assertContains(refused, "endOfData", "barrier");
        assertThrows(IllegalStateException.class, () -> store.pushPull("w", List.of(v), List.of(v), 0));
        DeviceArray out = array(engine, devices().get(0), 2, "out");
        store.pull("w", out);
        assertArrayEquals(new float[] {1, 2}, read(engine, out));
        store.barrier();
        store.push("w", v);
        store.pull("w", out);
        assertArrayEquals(new float[] {5, 6}, read(engine, out));
    }

    // ------------------------------------------------------------------ failures

    @Test
    void aFailedProducerOfAPushedValueFailsThePulledArrayWithTheOriginalCause() {
        KVStore store = openOne();
        Context c = devices().get(0);
        DeviceArray g = array(engine, c, 3, "g");
        RuntimeException boom = pushAFailedGradient(store, g);
        DeviceArray out = array(engine, c, 3, "out");
        store.pull("w", out);
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out.var(), BOUND));
        assertSame(boom, e.getCause(), "the pulled array carries the producer's failure");

        // reported once, then cleared: the key works again
        write(engine, g, new float[] {7, 8, 9});
        store.push("w", g);
        store.pull("w", out);
        assertArrayEquals(new float[] {7, 8, 9}, read(engine, out), "the key recovered after the failure was reported");
    }

    /** Inits key "w" (3 floats) and pushes {@code g} as written by an op that fails; returns its failure. */
    private RuntimeException pushAFailedGradient(KVStore store, DeviceArray g) {
        init(store, "w", g.context(), new float[] {1, 2, 3});
        RuntimeException boom = new RuntimeException("gradient op failed for the test");
        engine.pushSync(rc -> {
            throw boom;
        }, g.context(), List.of(), List.of(g.var()), FnProperty.NORMAL, 0, "test: failing gradient");
        store.push("w", g);
        return boom;
    }

    @Test
    void aFailureOfTheStoreNamesTheKeyAndTheRank() {
        KVStore store = openOne();
        store.setUpdater(new FailingUpdater());
        Context c = devices().get(0);
        init(store, "layer3.weight", c, new float[] {1});
        DeviceArray g = array(engine, c, 1, "g");
        write(engine, g, new float[] {1});
        store.push("layer3.weight", g);
        DeviceArray out = array(engine, c, 1, "out");
        store.pull("layer3.weight", out);
        EngineException e = assertThrows(EngineException.class, () -> engine.waitForVar(out.var(), BOUND));
        KVStoreException kv = findCause(e, KVStoreException.class);
        assertEquals("layer3.weight", kv.key());
        assertEquals(0, kv.rank());
        assertContains(kv, "layer3.weight", "rank 0", "updater failure for the test");
    }

    // ------------------------------------------------------------------ close

    @Test
    void closeFinishesThePushedOpsThenRefusesCalls() throws Exception {
        KVStore store = openOne();
        Context c = devices().get(0);
        init(store, "w", c, new float[] {1, 2});
        DeviceArray v = array(engine, c, 2, "v");
        DeviceArray out = array(engine, c, 2, "out");
        if (threaded()) {
            Held producer = pushHeld(List.of(), List.of(v.var()), "slow producer");
            store.push("w", v);
            store.pull("w", out);
            Thread closer = new Thread(store::close, "closer");
            closer.start();
            awaitThread(closer, s -> s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING,
                    "close() to wait for the store's pending ops");
            assertTrue(closer.isAlive(), "close() returned while a push was still pending");
            producer.complete();
            joinBounded(closer);
        } else {
            write(engine, v, new float[] {0, 0});
            store.push("w", v);
            store.pull("w", out);
            store.close();
        }
        assertTrue(store.isClosed());
        engine.waitForVar(out.var(), BOUND);
        store.close(); // idempotent

        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> store.push("w", v));
        assertContains(closed, "closed");
        assertThrows(IllegalStateException.class, () -> store.pull("w", out));
        assertThrows(IllegalStateException.class, () -> store.pushPull("w", List.of(v), List.of(out), 0));
        assertThrows(IllegalStateException.class, () -> store.init("x", v));
        assertThrows(IllegalStateException.class, () -> store.setUpdater(Updater.sum()));
        assertThrows(IllegalStateException.class, store::barrier);
        assertThrows(IllegalStateException.class, store::endOfData);
    }

    // ------------------------------------------------------------------ optimizer state and checkpoints

    /** Keys small enough to be split into chunks of {@link #SPLIT} floats (one whole, one in three chunks). */
    private static final Map<String, Integer> TRAINED_KEYS = new LinkedHashMap<>(Map.of("a", 3, "b", 10));
    /** A store that splits keys does so here: chunks keep state of their own. */
    private static final Map<String, String> SPLIT = Map.of("splitFloats", "4");

    /** Where the checkpoint cases write. */
    @TempDir
    Path checkpoints;

    @Test
    void momentumSgdKeepsItsStatePerKeyAndChunkAsTheSerialModel() {
        trainsAsTheSerialModel(Updater.sgd(0.05f, 0.9f, 0.01f, 0.5f));
    }

    @Test
    void adamKeepsItsStatePerKeyAndChunkAsTheSerialModel() {
        trainsAsTheSerialModel(Updater.adam(0.01f, 0.9f, 0.999f, 1e-8f, 0.001f, 1f));
    }

    private void trainsAsTheSerialModel(Updater updater) {
        List<KVStore> stores = openWorkers(trainingWorkers(), SPLIT);
        SerialTraining model = new SerialTraining(updater, TRAINED_KEYS, stores.size(), 7);
        startTraining(stores, updater, model, false);
        for (int round = 1; round <= 4; round++) {
            trainRound(stores, model, round);
        }
    }

    /**
     * MXNet's save/load of weights and optimizer state: a checkpoint written between two barriers, then
     * a fresh store opened with {@code resume} (its inits' values ignored), gives the values that
     * continuing the first store gives, round for round.
     */
    @Test
    void aCheckpointResumedInAFreshStoreGivesTheValuesOfContinuing() {
        Updater adam = Updater.adam(0.01f);
        int workers = trainingWorkers();
        List<KVStore> stores = openWorkers(workers, SPLIT);
        SerialTraining model = new SerialTraining(adam, TRAINED_KEYS, workers, 11);
        startTraining(stores, adam, model, false);
        for (int round = 1; round <= 3; round++) {
            trainRound(stores, model, round);
        }
        Path file = checkpoints.resolve("job.ckpt");
        barrierAll(stores);
        stores.get(0).checkpoint(file);
        barrierAll(stores);
        Checkpoint written = Checkpoint.read(file);
        assertEquals(1, written.period(), "one barrier before the checkpoint");
        for (String key : model.keys()) {
            Checkpoint.Entry e = written.entries().get(key);
            assertArrayEquals(model.weights(key), e.value(), "checkpointed weights of " + key);
            assertArrayEquals(model.state(key), e.state(), "checkpointed Adam state of " + key);
            assertEquals(3, e.steps(), "updates of " + key);
        }
        for (int round = 4; round <= 6; round++) {
            trainRound(stores, model, round); // continuing: the model is checked against the store
        }
        stores.forEach(KVStore::close);

        SerialTraining replay = new SerialTraining(adam, TRAINED_KEYS, workers, 11);
        for (int round = 1; round <= 3; round++) {
            replay.round(round);
        }
        Map<String, String> resume = new HashMap<>(SPLIT);
        resume.put("resume", file.toString());
        List<KVStore> resumed = openWorkers(workers, resume);
        for (KVStore s : resumed) {
            assertEquals(1, s.period(), "a resumed store starts in the checkpoint's period (rank " + s.rank() + ")");
        }
        startTraining(resumed, adam, replay, true);
        assertPulled(resumed, replay, "after the resume");
        for (int round = 4; round <= 6; round++) {
            trainRound(resumed, replay, round);
        }
        assertArrayEquals(model.weights("b"), replay.weights("b"), "resumed = continued (the same model twice)");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> init(resumed.get(0), "c", devices().get(0), new float[] {1}));
        assertContains(unknown, "'c'", "has no such key", file.toString());
    }

    @Test
    void aCheckpointAfterAFailedPushFailsWithItsCauseInsteadOfSavingAStaleValue() {
        KVStore store = openOne();
        RuntimeException boom = pushAFailedGradient(store, array(engine, devices().get(0), 3, "g"));
        store.barrier();
        Path file = checkpoints.resolve("failed.ckpt");
        KVStoreException e = assertThrows(KVStoreException.class, () -> store.checkpoint(file));
        assertContains(e, "checkpoint " + file, "misses a push", "nothing was written");
        Throwable cause = e;
        while (cause != null && cause != boom) {
            cause = cause.getCause();
        }
        assertSame(boom, cause, "the failure's cause is the producer's: " + e);
        assertTrue(!java.nio.file.Files.exists(file), "no file for a failed checkpoint");
    }

    @Test
    void aCheckpointOnAnotherRankThanZeroIsRefused() {
        assumeTrue(maxWorkers() >= 2, "this store has a single worker");
        List<KVStore> stores = openWorkers(2);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> stores.get(1).checkpoint(checkpoints.resolve("x")));
        assertContains(e, "rank 1", "rank 0 writes the checkpoints");
    }

    /** Two workers where rounds are synchronous, else one (the order of async pushes is not the model's). */
    private int trainingWorkers() {
        return synchronousRounds() ? Math.min(2, maxWorkers()) : 1;
    }

    /** Sets the updater and inits every key (a resumed store: with zeros, which the checkpoint replaces). */
    private void startTraining(List<KVStore> stores, Updater updater, SerialTraining model, boolean resumed) {
        for (KVStore s : stores) {
            s.setUpdater(updater);
            for (Map.Entry<String, Integer> k : TRAINED_KEYS.entrySet()) {
                init(s, k.getKey(), devices().get(0),
                        resumed ? new float[k.getValue()] : model.initial(k.getKey(), k.getValue()));
            }
        }
    }

    /** Every worker pushes its gradients of round {@code round}, the model applies it, and every worker's pull equals the model. */
    private void trainRound(List<KVStore> stores, SerialTraining model, int round) {
        for (KVStore s : stores) {
            for (String key : model.keys()) {
                DeviceArray g = array(s.engine(), devices().get(0), TRAINED_KEYS.get(key), "g." + key);
                write(s.engine(), g, model.gradient(round, s.rank(), key));
                s.push(key, g);
            }
        }
        model.round(round);
        assertPulled(stores, model, "round " + round);
    }

    private void assertPulled(List<KVStore> stores, SerialTraining model, String when) {
        for (KVStore s : stores) {
            for (String key : model.keys()) {
                DeviceArray out = array(s.engine(), devices().get(0), TRAINED_KEYS.get(key), "out." + key);
                s.pull(key, out);
                assertArrayEquals(model.weights(key), read(s.engine(), out), key + " on rank " + s.rank() + " " + when);
            }
        }
    }

    // ------------------------------------------------------------------ several workers

    @Test
    void aSyncRoundSumsEveryWorkersPush() {
        assumeTrue(maxWorkers() >= 2, "this store has a single worker");
        assumeTrue(synchronousRounds(), "this store does not make a pull wait for the whole round");
        int workers = Math.min(3, maxWorkers());
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
    void aWorkerAtEndOfDataDoesNotHoldUpTheRound() {
        assumeTrue(maxWorkers() >= 2, "this store has a single worker");
        assumeTrue(synchronousRounds(), "this store does not make a pull wait for the whole round");
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
    void aBarrierReturnsOnceEveryWorkerHasCalledIt() throws Exception {
        assumeTrue(maxWorkers() >= 2, "this store has a single worker");
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
    void aPullCalledBeforeABarrierWithNoWaitSeesTheRoundOfItsPush() {
        assumeTrue(maxWorkers() >= 2, "this store has a single worker");
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
        int workers = Math.min(3, maxWorkers());
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

    /** Calls {@link KVStore#barrier()} on every store at once (one thread each), failing on any error. */
    protected static void barrierAll(List<KVStore> stores) {
        eachWorker(stores, KVStore::barrier);
    }

    /**
     * Runs {@code body} for every store at once, one thread each (a worker's program), and returns when
     * all have returned (bounded), failing with the first error.
     */
    protected static void eachWorker(List<KVStore> stores, Consumer<KVStore> body) {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        for (KVStore s : stores) {
            Thread t = new Thread(() -> {
                try {
                    body.accept(s);
                } catch (RuntimeException | Error e) {
                    errors.add(e);
                }
            }, "worker-rank" + s.rank());
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            try {
                joinBounded(t);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        if (!errors.isEmpty()) {
            throw new AssertionError("a worker failed: " + errors, errors.get(0));
        }
    }

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
        int workers = Math.min(2, maxWorkers());
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

    /**
     * A producer of a pushed value that fails in replay k fails that replay's pull with its cause; the
     * replays before and after it give the serial values (the failed push contributes nothing). With
     * several workers (a store whose pulls see the whole round), another worker pushing directly every
     * step sees that round complete without the failed push, and the later rounds with it.
     */
    @Test
    void aFailingProducerInReplayKFailsThatReplaysPullAndTheOthersGiveTheSerialValues() {
        int workers = synchronousRounds() ? Math.min(2, maxWorkers()) : 1;
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

    // ------------------------------------------------------------------ helpers

    /** Asserts that {@code t}'s message contains every part. */
    protected static void assertContains(Throwable t, String... parts) {
        String m = String.valueOf(t.getMessage());
        for (String p : parts) {
            assertTrue(m.contains(p), "message should contain '" + p + "': " + m);
        }
    }

    private static <T extends Throwable> T findCause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + t, t);
    }
}
