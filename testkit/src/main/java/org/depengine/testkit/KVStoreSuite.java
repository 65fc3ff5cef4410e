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
 * The base of the KVStore suites ({@link KVStoreConformance}): the store of the suite's point of the cross
 * product and the engine under it ({@link EngineTestBase}), the helpers every suite shares (opening
 * stores, arrays on devices, a worker thread each), and the invariants checked after each test: every
 * store the test opened is closed, and the store's implementation holds nothing of them
 * ({@link StoreSetup.Invariants}: no listener, no map, no connection), on top of the engine's.
 *
 * <p>Values are whole numbers below 2^20, so every sum is exact whatever the order: results are compared
 * with a serial oracle for equality.
 */
public abstract class KVStoreSuite extends EngineTestBase {
    /** The store at this point of the cross product; handed down before each test. */
    private StoreSetup store;

    /** Called by {@link StoreUnderTest.UseEnclosingStore} before each test. */
    final void useStore(StoreSetup s) {
        this.store = s;
    }

    /** The store at this test's point of the cross product. */
    protected final StoreSetup store() {
        if (store == null) {
            throw new IllegalStateException(getClass().getName() + " has no store to test: nest it in a KVStoreConformance");
        }
        return store;
    }

    /** The workers a multi-worker case opens at this point. */
    protected final int workers() {
        return store().workers();
    }

    /** The split size of the no-wait cases (0: the store keeps keys whole). */
    protected final int splitFloats() {
        return store().splitFloats();
    }

    /** Whether a pull after a push of every worker sees the whole round. */
    protected final boolean synchronousRounds() {
        return store().synchronousRounds();
    }

    /** The devices values and outs are spread over. */
    protected final List<Context> devices() {
        return store().devices();
    }

    /** Opens one store per engine, all of one job (see {@link StoreSetup.Opener}). */
    protected final List<KVStore> openStores(List<Engine> engines, Map<String, String> settings) {
        return store().opener().open(engines, settings);
    }

    /** The stores opened by the test, closed after it. */
    final List<KVStore> opened = new ArrayList<>();

    /** The extra engines of multi-worker cases, closed after the stores. */
    final List<Engine> extraEngines = new ArrayList<>();

    /** Synchronized: workers' threads allocate arrays too. */
    final List<DeviceBuffer> buffers = Collections.synchronizedList(new ArrayList<>());

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
        boolean any = !opened.isEmpty();
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
        if (any) {
            store().invariants().checkNothingLeft(); // every store closed: its implementation holds none of them
        }
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
        final Engine engine;
        final VarHandle done;
        final ByteBuffer host;

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

    static float[] ramp(int n, float start) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = start + i;
        }
        return a;
    }

    static float[] randomInts(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(2001) - 1000;
        }
        return a;
    }

    /** Initialises {@code key} on {@code store} with {@code data}, through an array on {@code ctx}. */
    void init(KVStore store, String key, Context ctx, float[] data) {
        DeviceArray a = array(store.engine(), ctx, data.length, key + ".init");
        write(store.engine(), a, data);
        store.init(key, a);
    }

    /** {@code stored += factor · merged}, plus 100 on key "b": a serializable updater with state. */
    static final class ScaledSum implements Updater {
        static final long serialVersionUID = 1L;
        final float factor;

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
        static final long serialVersionUID = 1L;

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            throw new IllegalStateException("updater failure for the test");
        }
    }

    /** Inits key "w" (3 floats) and pushes {@code g} as written by an op that fails; returns its failure. */
    RuntimeException pushAFailedGradient(KVStore store, DeviceArray g) {
        init(store, "w", g.context(), new float[] {1, 2, 3});
        RuntimeException boom = new RuntimeException("gradient op failed for the test");
        engine.pushSync(rc -> {
            throw boom;
        }, g.context(), List.of(), List.of(g.var()), FnProperty.NORMAL, 0, "test: failing gradient");
        store.push("w", g);
        return boom;
    }

    // ------------------------------------------------------------------ optimizer state and checkpoints

    /** Keys small enough to be split into chunks of {@link #SPLIT} floats (one whole, one in three chunks). */
    static final Map<String, Integer> TRAINED_KEYS = new LinkedHashMap<>(Map.of("a", 3, "b", 10));

    /** A store that splits keys does so here: chunks keep state of their own. */
    static final Map<String, String> SPLIT = Map.of("splitFloats", "4");

    /** Where the checkpoint cases write. */
    @TempDir
    Path checkpoints;

    /** Two workers where rounds are synchronous, else one (the order of async pushes is not the model's). */
    int trainingWorkers() {
        return synchronousRounds() ? workers() : 1;
    }

    /** Sets the updater and inits every key (a resumed store: with zeros, which the checkpoint replaces). */
    void startTraining(List<KVStore> stores, Updater updater, SerialTraining model, boolean resumed) {
        for (KVStore s : stores) {
            s.setUpdater(updater);
            for (Map.Entry<String, Integer> k : TRAINED_KEYS.entrySet()) {
                init(s, k.getKey(), devices().get(0),
                        resumed ? new float[k.getValue()] : model.initial(k.getKey(), k.getValue()));
            }
        }
    }

    /** Every worker pushes its gradients of round {@code round}, the model applies it, and every worker's pull equals the model. */
    void trainRound(List<KVStore> stores, SerialTraining model, int round) {
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

    void assertPulled(List<KVStore> stores, SerialTraining model, String when) {
        for (KVStore s : stores) {
            for (String key : model.keys()) {
                DeviceArray out = array(s.engine(), devices().get(0), TRAINED_KEYS.get(key), "out." + key);
                s.pull(key, out);
                assertArrayEquals(model.weights(key), read(s.engine(), out), key + " on rank " + s.rank() + " " + when);
            }
        }
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

    // ------------------------------------------------------------------ helpers

    /** Asserts that {@code t}'s message contains every part. */
    protected static void assertContains(Throwable t, String... parts) {
        String m = String.valueOf(t.getMessage());
        for (String p : parts) {
            assertTrue(m.contains(p), "message should contain '" + p + "': " + m);
        }
    }

    static <T extends Throwable> T findCause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + t, t);
    }

    static void add(float[] acc, float[] x) {
        for (int i = 0; i < acc.length; i++) {
            acc[i] += x[i];
        }
    }
}
