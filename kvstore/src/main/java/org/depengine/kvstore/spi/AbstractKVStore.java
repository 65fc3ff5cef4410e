package org.depengine.kvstore.spi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.depengine.api.AsyncFn;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.Updater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every {@link KVStore} shares: argument checks, the key registry, the closed state, and the ops
 * that move data between the devices and the host. An implementation only says what happens to a key's
 * host arrays: {@link #sendInit}, {@link #send} and {@link #fetch}, each an asynchronous call.
 *
 * <h2>A key's host state</h2>
 * Each key ({@link Key}) has two host arrays of its length, each guarded by a variable of its own:
 * <ul>
 *   <li>{@link Key#merged()}, guarded by {@link Key#mergedVar()}: the sum of the last push's values;</li>
 *   <li>{@link Key#stored()}, guarded by {@link Key#storeVar()}: the key's value as this worker sees it,
 *   the source of every pull.</li>
 * </ul>
 *
 * <h2>The ops each call pushes (all with the call's priority)</h2>
 * <pre>
 * init(k, v):      gather   reads v.var        writes k.storeVar   stored  ← v (device → host copy)
 *                  init     (none)             writes k.storeVar   {@link #sendInit}(k)
 * push(k, vs):     gather i reads vs[i].var    writes staging i    one per value (device → host copy)
 *                  sum      reads staging 0..n writes k.mergedVar  merged ← Σ staging, in list order
 *                           (one value: its gather writes merged directly, no sum op)
 *                  send     reads k.mergedVar  writes k.storeVar   {@link #send}(k, round)
 *                  check    reads k.storeVar   (NO_SKIP)           {@link #skippedSend}(k, round) if send was skipped
 *                           (only if {@link #reportsSkippedPushes()})
 * pull(k, outs):   fetch    (none)             writes k.storeVar   {@link #fetch}(k, round)   (if {@link #pullFetches()})
 *                  scatter  reads k.storeVar   writes out.var      out ← stored (host → device copy), one per out
 * </pre>
 * So on one key, every call's ops run in call order (they all touch {@code storeVar}), except that the
 * gathers and the sum of a push overlap the previous call's send/fetch/scatters; a later push's gather
 * waits for the previous send to have read {@code merged}. Calls on different keys share no variable
 * and run independently. No op ever blocks a thread on the network: {@code send}, {@code fetch} and
 * {@code sendInit} are {@link AsyncFn}s that start the call and complete from its callback.
 *
 * <h2>Rounds</h2>
 * Each push of a key gets the next round number of that key on this worker, assigned at the call:
 * round 0 is the {@code init}, the first push is round 1. A pull asks for the round of this worker's
 * last push to that key (0 before any): in {@code dist_sync}, {@link #fetch} completes once that round's
 * update has landed, which is how a pull sees the whole round; in {@code dist_async} the round is
 * informational. Round numbers are per key and per worker; an implementation that lets workers skip
 * rounds ({@link #endOfData()}) reconciles them itself in {@link #doBarrier()}: exchange every worker's
 * {@link Key#rounds()} at the barrier and {@link Key#advanceRoundsTo} the highest.
 *
 * <h2>Failures</h2>
 * A hook fails its op by calling {@code done.fail(cause)} or by throwing; the base class wraps the cause
 * in a {@link KVStoreException} naming the key, this rank, the round and the step (unless it already is
 * one), so {@code waitForVar} on a later pull's out throws an {@code EngineException} whose cause names
 * them. A hook must never leave {@code done} uncalled: a remote call is bounded by
 * {@link KVStoreSettings#timeoutMs()} and fails with a message naming what it waited for (e.g. the
 * missing ranks). A hook is called on an engine thread (or the pushing thread for an
 * {@link FnProperty#ASYNC} op ready at push time): it must start its call and return, never block.
 *
 * <h2>Thread-safety</h2>
 * The public methods may be called from any thread. Hooks are called on engine threads, never
 * concurrently for one key (the key's variables order them), concurrently for different keys.
 */
public abstract class AbstractKVStore implements KVStore {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractKVStore.class);
    private static final long MAX_FLOATS = Integer.MAX_VALUE / Float.BYTES;

    private final Engine engine;
    private final String type;
    private final KVStoreSettings settings;
    private final Map<String, Key> keys = new ConcurrentHashMap<>();
    /** Calls hold the read side while they check the state and push ops; close takes the write side. */
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final Object updaterLock = new Object();
    private volatile boolean closed;
    private volatile boolean pushed;
    private volatile boolean endOfData;
    private volatile Updater updater;

    /**
     * @param engine the engine the store pushes its ops to
     * @param type the store's type, e.g. {@code "local"}
     * @param settings the settings it was opened with
     * @throws NullPointerException if an argument is null
     */
    protected AbstractKVStore(Engine engine, String type, KVStoreSettings settings) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.type = Objects.requireNonNull(type, "type");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    // ---------------------------------------------------------------- the hooks

    /**
     * Makes {@link Key#stored()} (holding this worker's {@code init} value) the key's initial value, for
     * round 0. A distributed store publishes rank 0's value, versioned so that no pull of round 0 on any
     * worker can complete with anything older. Called from an op that writes {@link Key#storeVar()}.
     *
     * @param done to be called exactly once, from any thread
     * @throws Exception to fail the op (only if {@code done} was not called)
     */
    protected abstract void sendInit(Key key, CallbackOnComplete done) throws Exception;

    /**
     * Hands {@link Key#merged()}, the sum of this worker's push of {@code round}, to the store, which
     * applies {@link #updater()} (or stores the sum when it is null) where the key lives. A local store
     * updates {@link Key#stored()} here; a distributed one sends {@code merged} and completes when the
     * owner has accepted it (not when the round is complete). Called from an op that reads
     * {@link Key#mergedVar()} and writes {@link Key#storeVar()}.
     *
     * @param done to be called exactly once, from any thread
     * @throws Exception to fail the op (only if {@code done} was not called)
     */
    protected abstract void send(Key key, long round, CallbackOnComplete done) throws Exception;

    /**
     * Fills {@link Key#stored()} with the key's value as of {@code round} (in {@code dist_sync}: completes
     * once that round's update has landed, by an event, not by polling; at most
     * {@link KVStoreSettings#timeoutMs()} after the last sign of progress). Called from an op that writes
     * {@link Key#storeVar()}, only if {@link #pullFetches()}.
     *
     * @param done to be called exactly once, from any thread
     * @throws Exception to fail the op (only if {@code done} was not called)
     */
    protected abstract void fetch(Key key, long round, CallbackOnComplete done) throws Exception;

    /**
     * Told that this worker's push of {@code round} was skipped: an op producing one of its values failed,
     * so {@link #send} was not called for that round (the failure travels on to this worker's later pulls
     * of the key, where its user sees it). A distributed sync store tells the owner that this rank
     * contributes nothing to the round, so that the other workers' round completes instead of timing out.
     * Called only if {@link #reportsSkippedPushes()}, from a {@link FnProperty#NO_SKIP} op that reads
     * {@link Key#storeVar()} (it runs after the push's send op, before the next call's ops on the key).
     * The default completes at once.
     *
     * @param done to be called exactly once, from any thread
     * @throws Exception to fail the op (only if {@code done} was not called)
     */
    protected void skippedSend(Key key, long round, CallbackOnComplete done) throws Exception {
        done.complete();
    }

    /**
     * Whether each push is followed by a check op that calls {@link #skippedSend} when the push was
     * skipped. False by default (one op less per push); a distributed sync store returns true.
     */
    protected boolean reportsSkippedPushes() {
        return false;
    }

    /**
     * Whether a pull needs a {@link #fetch} before copying {@link Key#stored()} out. True by default; a
     * local store, whose {@link #send} already updates {@code stored}, returns false.
     */
    protected boolean pullFetches() {
        return true;
    }

    /**
     * The property of the {@code sendInit}, {@code send} and {@code fetch} ops, all on {@code cpu:0}:
     * {@link FnProperty#ASYNC} by default (they only start a remote call); a store whose {@code send}
     * computes on the host (the local updater) returns {@link FnProperty#CPU_PRIORITIZED}.
     */
    protected FnProperty storeOpProperty() {
        return FnProperty.ASYNC;
    }

    /** The rendezvous of {@link #barrier()}; called with the store open, on the caller's thread. */
    protected abstract void doBarrier();

    /** Told of {@link #endOfData()} (once per period); the default does nothing. */
    protected void onEndOfData() {
    }

    /**
     * Releases the implementation's resources (connections, members); called once by {@link #close()},
     * after every op of this store has finished. It must not throw for a store that is already broken.
     */
    protected abstract void closeStore();

    // ---------------------------------------------------------------- for implementations

    /** The settings the store was opened with. */
    protected final KVStoreSettings settings() {
        return settings;
    }

    /** The updater set with {@link #setUpdater}, or null for none (the stored value becomes the sum). */
    protected final Updater updater() {
        return updater;
    }

    /** The registered key of that name, or null. */
    protected final Key key(String name) {
        return keys.get(name);
    }

    /** Every registered key, as a snapshot in name order. */
    protected final List<Key> allKeys() {
        List<Key> out = new ArrayList<>(keys.values());
        out.sort(Comparator.comparing(Key::name));
        return out;
    }

    /**
     * Applies {@link #updater()} (or assignment when none is set) to {@code stored} from {@code merged}:
     * what a store does with a round's sum.
     *
     * @throws KVStoreException if the updater throws (naming the key, the rank and the updater)
     */
    protected final void applyUpdater(String key, FloatBuffer merged, FloatBuffer stored) {
        Updater u = updater;
        try {
            (u == null ? Updater.assign() : u).update(key, merged, stored);
        } catch (RuntimeException | Error e) {
            throw new KVStoreException(key, rank(), "updater " + u + " failed", e);
        }
    }

    /**
     * One key: its name, length, variables and host arrays. The arrays are for the hooks, which run in
     * ops that hold the matching variables. Thread-safe.
     */
    public static final class Key {
        private final String name;
        private final int length;
        private final VarHandle storeVar;
        private final VarHandle mergedVar;
        private final ByteBuffer stored;
        private final ByteBuffer merged;
        private final Map<String, Staging> staging = new ConcurrentHashMap<>();
        private long pushes;
        /** The round of the last send op that ran; written and read only in ops holding storeVar. */
        private volatile long lastSent;

        Key(Engine engine, String name, int length) {
            this.name = name;
            this.length = length;
            storeVar = engine.newVariable("kvstore[" + name + "].stored");
            mergedVar = engine.newVariable("kvstore[" + name + "].merged");
            stored = ByteBuffer.allocateDirect(length * Float.BYTES).order(ByteOrder.nativeOrder());
            merged = ByteBuffer.allocateDirect(length * Float.BYTES).order(ByteOrder.nativeOrder());
        }

        /** The key. */
        public String name() {
            return name;
        }

        /** The number of floats. */
        public int length() {
            return length;
        }

        /** Guards {@link #stored()}. */
        public VarHandle storeVar() {
            return storeVar;
        }

        /** Guards {@link #merged()}. */
        public VarHandle mergedVar() {
            return mergedVar;
        }

        /** The key's value as this worker sees it: a new view each call (position 0, limit = length). */
        public FloatBuffer stored() {
            return stored.duplicate().order(stored.order()).asFloatBuffer();
        }

        /** The sum of the last push: a new view each call (position 0, limit = length). */
        public FloatBuffer merged() {
            return merged.duplicate().order(merged.order()).asFloatBuffer();
        }

        /** The bytes of {@link #stored()} (native order, direct): a new view each call. */
        public ByteBuffer storedBytes() {
            return stored.duplicate().order(stored.order());
        }

        /** The bytes of {@link #merged()} (native order, direct): a new view each call. */
        public ByteBuffer mergedBytes() {
            return merged.duplicate().order(merged.order());
        }

        /** The number of pushes this worker made to this key: the round of the last one. */
        public synchronized long rounds() {
            return pushes;
        }

        /**
         * Moves this worker's round counter of the key forward to {@code round} (no-op if already
         * there): for an implementation that realigns rounds after some workers skipped some (uneven
         * batch counts, {@link KVStore#endOfData()}), typically in {@link AbstractKVStore#doBarrier()}.
         * The next push gets {@code round + 1}.
         */
        public synchronized void advanceRoundsTo(long round) {
            pushes = Math.max(pushes, round);
        }

        synchronized long nextRound() {
            return ++pushes;
        }

        Staging staging(Engine engine, int slot, DeviceArray value) {
            return staging.computeIfAbsent(slot + "@" + value.context(), k -> new Staging(
                    engine.newVariable("kvstore[" + name + "].staging" + slot + "@" + value.context()),
                    value.device().allocateHost(length * Float.BYTES).order(ByteOrder.nativeOrder())));
        }

        List<VarHandle> vars() {
            List<VarHandle> vs = new ArrayList<>();
            vs.add(storeVar);
            vs.add(mergedVar);
            for (Staging s : staging.values()) {
                vs.add(s.var);
            }
            return vs;
        }

        @Override
        public String toString() {
            return "key '" + name + "' (" + length + " floats)";
        }
    }

    /** A host buffer that one value of a multi-value push is gathered into before the sum. */
    private record Staging(VarHandle var, ByteBuffer buffer) {
    }

    // ---------------------------------------------------------------- KVStore

    @Override
    public final String type() {
        return type;
    }

    @Override
    public final Engine engine() {
        return engine;
    }

    @Override
    public int rank() {
        return settings.rank();
    }

    @Override
    public int numWorkers() {
        return settings.numWorkers();
    }

    @Override
    public final void init(String key, DeviceArray value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        ensureOpen("init");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("kvstore key must not be empty");
        }
        if (value.length() == 0 || value.length() > MAX_FLOATS) {
            throw new IllegalArgumentException("cannot init key '" + key + "' with " + value + ": a key holds 1 to "
                    + MAX_FLOATS + " floats, this value has " + value.length());
        }
        Memcpy memcpy = value.device().requirePrimitive(Memcpy.class);
        gate.readLock().lock();
        try {
            ensureOpen("init");
            Key k = new Key(engine, key, (int) value.length());
            Key before = keys.putIfAbsent(key, k);
            if (before != null) {
                throw new IllegalArgumentException("key '" + key + "' is already initialised on this " + type
                        + " store (" + before.length + " floats); init each key once");
            }
            pushInit(k, value, memcpy);
        } finally {
            gate.readLock().unlock();
        }
    }

    private void pushInit(Key k, DeviceArray value, Memcpy memcpy) {
        String key = k.name;
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), value.buffer(), value.offsetBytes(), k.storedBytes()),
                value.context(), List.of(value.var()), List.of(k.storeVar), FnProperty.COPY_FROM_DEVICE, 0,
                "kvstore init " + key + ": copy " + value + " to host");
        engine.pushAsync(hook(k, 0, "init", this::sendInit0), Context.cpu(), List.of(), List.of(k.storeVar),
                storeOpProperty(), 0, "kvstore init " + key);
    }

    @Override
    public final void push(String key, List<DeviceArray> values, int priority) {
        gate.readLock().lock();
        try {
            Key k = checked("push", key, values, "values");
            checkMayPush("push", key);
            pushLocal(k, values, priority);
        } finally {
            gate.readLock().unlock();
        }
    }

    @Override
    public final void pull(String key, List<DeviceArray> outs, int priority) {
        gate.readLock().lock();
        try {
            Key k = checked("pull", key, outs, "outs");
            pullLocal(k, outs, priority);
        } finally {
            gate.readLock().unlock();
        }
    }

    @Override
    public final void pushPull(String key, List<DeviceArray> values, List<DeviceArray> outs, int priority) {
        gate.readLock().lock();
        try {
            Key k = checked("pushPull", key, values, "values");
            checked("pushPull", key, outs, "outs");
            checkMayPush("pushPull", key);
            pushLocal(k, values, priority);
            pullLocal(k, outs, priority);
        } finally {
            gate.readLock().unlock();
        }
    }

    private void checkMayPush(String call, String key) {
        if (endOfData) {
            throw new IllegalStateException("cannot " + call + " key '" + key + "': rank " + rank()
                    + " signalled endOfData(); call barrier() before pushing again");
        }
        synchronized (updaterLock) {
            pushed = true; // under the same lock as setUpdater's check: no push slips past a late setUpdater
        }
    }

    @Override
    public final void setUpdater(Updater updater) {
        Objects.requireNonNull(updater, "updater");
        gate.readLock().lock();
        try {
            ensureOpen("setUpdater");
            synchronized (updaterLock) {
                if (pushed) {
                    throw new IllegalStateException("setUpdater(" + updater + ") after the first push on this " + type
                            + " store: set the updater before pushing");
                }
                this.updater = updater;
            }
        } finally {
            gate.readLock().unlock();
        }
    }

    @Override
    public final void barrier() {
        ensureOpen("barrier");
        doBarrier();
        endOfData = false;
    }

    @Override
    public final void endOfData() {
        ensureOpen("endOfData");
        if (!endOfData) {
            endOfData = true;
            onEndOfData();
        }
    }

    @Override
    public final Set<String> keys() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(keys.keySet()));
    }

    @Override
    public final int length(String key) {
        Objects.requireNonNull(key, "key");
        return known(key, "length").length;
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final void close() {
        gate.writeLock().lock(); // waits for calls in progress: their ops are pushed before the fence below
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            gate.writeLock().unlock();
        }
        try {
            awaitOwnOps();
        } finally {
            closeStore();
        }
    }

    // ---------------------------------------------------------------- the ops

    private void pushLocal(Key k, List<DeviceArray> values, int priority) {
        long round = k.nextRound();
        if (values.size() == 1) {
            DeviceArray v = values.get(0);
            Memcpy memcpy = v.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), v.buffer(), v.offsetBytes(), k.mergedBytes()),
                    v.context(), List.of(v.var()), List.of(k.mergedVar), FnProperty.COPY_FROM_DEVICE, priority,
                    "kvstore push " + k.name + " round " + round + ": copy " + v + " to host");
        } else {
            List<ByteBuffer> parts = new ArrayList<>(values.size());
            List<VarHandle> partVars = new ArrayList<>(values.size());
            for (int i = 0; i < values.size(); i++) {
                DeviceArray v = values.get(i);
                Memcpy memcpy = v.device().requirePrimitive(Memcpy.class);
                Staging s = k.staging(engine, i, v);
                ByteBuffer host = s.buffer.duplicate().order(s.buffer.order());
                engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), v.buffer(), v.offsetBytes(), host),
                        v.context(), List.of(v.var()), List.of(s.var), FnProperty.COPY_FROM_DEVICE, priority,
                        "kvstore push " + k.name + " round " + round + ": copy " + v + " to host");
                parts.add(host);
                partVars.add(s.var);
            }
            engine.pushSync(rc -> sum(parts, k.merged()), Context.cpu(), partVars, List.of(k.mergedVar),
                    FnProperty.CPU_PRIORITIZED, priority, "kvstore push " + k.name + " round " + round + ": sum "
                            + values.size() + " values");
        }
        engine.pushAsync(hook(k, round, "send", (key, r, done) -> {
            key.lastSent = r;
            send(key, r, done);
        }), Context.cpu(), List.of(k.mergedVar), List.of(k.storeVar), storeOpProperty(), priority,
                "kvstore push " + k.name + " round " + round);
        if (reportsSkippedPushes()) {
            engine.pushAsync(hook(k, round, "report of a skipped push", (key, r, done) -> {
                if (key.lastSent == r) {
                    done.complete();
                } else {
                    skippedSend(key, r, done);
                }
            }), Context.cpu(), List.of(k.storeVar), List.of(), FnProperty.NO_SKIP, priority,
                    "kvstore push " + k.name + " round " + round + ": check it was sent");
        }
    }

    private void pullLocal(Key k, List<DeviceArray> outs, int priority) {
        long round = k.rounds();
        if (pullFetches()) {
            engine.pushAsync(hook(k, round, "fetch", (key, r, done) -> fetch(key, r, done)), Context.cpu(),
                    List.of(), List.of(k.storeVar), storeOpProperty(), priority,
                    "kvstore pull " + k.name + " round " + round);
        }
        for (DeviceArray out : outs) {
            Memcpy memcpy = out.device().requirePrimitive(Memcpy.class);
            engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), k.storedBytes(), out.buffer(), out.offsetBytes()),
                    out.context(), List.of(k.storeVar), List.of(out.var()), scatterProperty(out), priority,
                    "kvstore pull " + k.name + " round " + round + ": copy to " + out);
        }
    }

    /**
     * The property of the copies into pulled arrays: on a CPU device they are host work that should
     * jump the queue ({@link FnProperty#CPU_PRIORITIZED}, so pull priorities order them), on another
     * device host-to-device copies.
     */
    private static FnProperty scatterProperty(DeviceArray out) {
        return out.context().isCpu() ? FnProperty.CPU_PRIORITIZED : FnProperty.COPY_TO_DEVICE;
    }

    private static void sum(List<ByteBuffer> parts, FloatBuffer merged) {
        int n = merged.limit();
        FloatBuffer[] ps = new FloatBuffer[parts.size()];
        for (int i = 0; i < ps.length; i++) {
            ps[i] = parts.get(i).duplicate().order(parts.get(i).order()).asFloatBuffer();
        }
        for (int j = 0; j < n; j++) {
            float s = 0; // from 0 in list order, so the result does not depend on which value arrived first
            for (FloatBuffer p : ps) {
                s += p.get(j);
            }
            merged.put(j, s);
        }
    }

    private void sendInit0(Key k, long round, CallbackOnComplete done) throws Exception {
        sendInit(k, done);
    }

    /** A hook as called by {@link #hook}. */
    @FunctionalInterface
    private interface Hook {
        void call(Key key, long round, CallbackOnComplete done) throws Exception;
    }

    /** Wraps a hook as an op body whose failures name the key, this rank, the round and the step. */
    private AsyncFn hook(Key k, long round, String step, Hook hook) {
        return (RunContext rc, CallbackOnComplete done) -> {
            CallbackOnComplete named = new CallbackOnComplete() {
                @Override
                public void complete() {
                    done.complete();
                }

                @Override
                public void fail(Throwable error) {
                    done.fail(named(k, round, step, Objects.requireNonNull(error, "error")));
                }
            };
            try {
                hook.call(k, round, named);
            } catch (Exception | Error e) {
                throw named(k, round, step, e);
            }
        };
    }

    private KVStoreException named(Key k, long round, String step, Throwable error) {
        if (error instanceof KVStoreException e) {
            return e;
        }
        return new KVStoreException(k.name, rank(), step + " of round " + round + " failed", error);
    }

    // ---------------------------------------------------------------- checks and close

    private Key checked(String call, String key, List<DeviceArray> arrays, String what) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(arrays, what);
        ensureOpen(call);
        Key k = known(key, call);
        if (arrays.isEmpty()) {
            throw new IllegalArgumentException(call + " of key '" + key + "': " + what + " is empty; give at least one array");
        }
        for (int i = 0; i < arrays.size(); i++) {
            DeviceArray a = arrays.get(i);
            if (a == null) {
                throw new NullPointerException(call + " of key '" + key + "': " + what + "[" + i + "] is null");
            }
            if (a.length() != k.length) {
                throw new IllegalArgumentException(call + " of key '" + key + "': " + what + "[" + i + "] = " + a
                        + " has " + a.length() + " floats, but the key holds " + k.length
                        + " (set by init); every array pushed to or pulled from a key has the key's length");
            }
        }
        return k;
    }

    private Key known(String key, String call) {
        Key k = keys.get(key);
        if (k == null) {
            throw new IllegalArgumentException(call + " of unknown key '" + key + "' on this " + type + " store: call init(\""
                    + key + "\", value) first" + (keys.isEmpty() ? " (no key is initialised)"
                            : "; keys initialised: " + new TreeSet<>(keys.keySet())));
        }
        return k;
    }

    /**
     * Throws if the store is closed.
     *
     * @throws IllegalStateException naming the call
     */
    protected final void ensureOpen(String call) {
        if (closed) {
            throw new IllegalStateException(call + " on a closed " + type + " store (rank " + rank() + ")");
        }
    }

    /**
     * Waits for every op this store pushed: a {@link FnProperty#NO_SKIP} op reading every variable of
     * the store runs after all of them (a read leaves their failures in place for their own waiters),
     * then the variables are deleted.
     */
    private void awaitOwnOps() {
        if (engine.isClosed() || keys.isEmpty()) {
            return;
        }
        List<VarHandle> vars = new ArrayList<>();
        for (Key k : keys.values()) {
            vars.addAll(k.vars());
        }
        CountDownLatch done = new CountDownLatch(1);
        try {
            engine.pushSync(rc -> done.countDown(), Context.cpu(), vars, List.of(), FnProperty.NO_SKIP, 0,
                    "kvstore close: wait for the store's ops");
            while (!done.await(settings.timeoutMs(), TimeUnit.MILLISECONDS)) {
                LOG.warn("closing the {} store (rank {}): its ops are still running after {} ms; waiting on",
                        type, rank(), settings.timeoutMs());
            }
            for (VarHandle v : vars) {
                engine.deleteVariable(rc -> { }, Context.cpu(), v);
            }
        } catch (IllegalStateException e) {
            LOG.debug("closing the {} store: engine closed meanwhile", type, e); // its close waited for our ops
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("closing the {} store (rank {}) was interrupted; its ops may still run", type, rank());
        }
    }
}
