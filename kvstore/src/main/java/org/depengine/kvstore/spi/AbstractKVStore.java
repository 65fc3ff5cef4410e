package org.depengine.kvstore.spi;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.depengine.api.AsyncFn;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.Checkpoint;
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
 *                  check    reads k.storeVar, k.mergedVar (NO_SKIP) {@link #skippedSend}(k, round) if send was skipped
 *                           (only if {@link #reportsSkippedPushes()})
 * endOfData(), barrier():
 *                  end      (none)             writes every k.storeVar {@link #endPeriod}(period)  (only if {@link #endsPeriods()})
 *                  mark     reads every k.mergedVar, writes every k.storeVar (NO_SKIP): the period's end or start, per key
 * pull(k, outs):   fetch    reads k.mergedVar  writes k.storeVar   {@link #fetch}(k, round)   (if {@link #pullFetches()})
 *                  scatter  reads k.storeVar   writes out.var      out ← stored (host → device copy), one per out
 * </pre>
 * So on one key, every call's ops run in call order (they all touch {@code storeVar}), except that the
 * gathers and the sum of a push overlap the previous call's send/fetch/scatters; a later push's gather
 * waits for the previous send (and fetch, and check) to have read {@code merged}. Calls on different
 * keys share no variable and run independently. No op ever blocks a thread on the network:
 * {@code send}, {@code fetch} and {@code sendInit} are {@link AsyncFn}s that start the call and complete
 * from its callback.
 *
 * <h2>Rounds, decided when the ops run, in call order</h2>
 * A round ({@link Rounds}) is a period and an index: the period counts this worker's {@link #barrier()}
 * calls; a push gets the next index of its key in the current period (from 1); a pull reads the round
 * of this worker's last push of the key in the current period, or, before any, index 0 of the period
 * (every round of the periods before), or round 0 (the init) in the period the key was initialised in.
 * The ops decide it when they run, from state the key's variables order: the send's index is the number
 * of writes of {@code mergedVar} (one per push, a skipped one included) since the period's mark op, the
 * fetch's the same count (both read {@code mergedVar}, so no later push's write moves it first), and the
 * mark op of each barrier starts the next period. So the rounds are the calls' order whenever the ops
 * run: a sequence of calls made with no waits gives the values it gives with a wait after every call,
 * and the same calls recorded in an {@link Engine#capture()} and replayed give, at each replay, the
 * rounds the calls made then would. In {@code dist_sync}, {@link #fetch} completes once that round's
 * update has landed, which is how a pull sees the whole round; in {@code dist_async} and {@code local}
 * the round is informational. {@code endOfData()} and {@code barrier()} push an op after every op of
 * this worker's keys that calls {@link #endPeriod} (when {@link #endsPeriods()}): the rounds of that
 * period complete without this worker from then on.
 *
 * <h2>In a capture</h2>
 * {@code push}, {@code pull} and {@code pushPull} made while the calling thread records a capture of
 * the store's engine are recorded like any push (their ops are the same either way). A direct push after
 * {@code endOfData()} is refused at the call; a replayed one cannot be, so its send fails when it runs
 * (after the period's end mark) and the failure reaches the key's later pulls. {@code init},
 * {@code setUpdater}, {@code barrier}, {@code endOfData}, {@code checkpoint} and {@code close} change or
 * wait on the store's state at the call: they are refused in a capture.
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
    private final KeyRegistry keys;
    private final StoreOps ops;
    private final StoreStats stats = new StoreStats();
    /** Calls hold the read side while they check the state and push ops; close takes the write side. */
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    /** Guards the call-time state below against concurrent calls: updater, pushed, period, endOfData. */
    private final Object callLock = new Object();
    private volatile boolean closed;
    private volatile boolean pushed;
    private volatile boolean endOfData;
    /** The number of {@link #barrier()} calls so far: the period of the next call's rounds. */
    private volatile int period;
    private volatile Updater updater;
    /** The checkpoint this store resumed from, on the rank that read it (null otherwise), and its path. */
    private volatile Checkpoint resumed;
    private volatile String resumedFrom;

    /**
     * @param engine the engine the store pushes its ops to
     * @param type the store's type, e.g. {@code "local"}
     * @param settings the settings it was opened with
     * @throws NullPointerException if an argument is null
     */
    @SuppressWarnings("this-escape") // StoreOps only reads the engine (assigned above) here; it uses the store at pushes
    protected AbstractKVStore(Engine engine, String type, KVStoreSettings settings) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.type = Objects.requireNonNull(type, "type");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.keys = new KeyRegistry(type);
        this.ops = new StoreOps(this);
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
     * Told that this worker has no more data for {@code period}: the period's rounds complete without
     * it (uneven batch counts). Called only if {@link #endsPeriods()}, from an op that writes every
     * key's {@link Key#storeVar()} (so after every earlier op of this worker's keys), pushed by
     * {@link #endOfData()} and by {@link #barrier()} (for the period the barrier ends). The default
     * completes at once.
     *
     * @param done to be called exactly once, from any thread
     * @throws Exception to fail the op (only if {@code done} was not called)
     */
    protected void endPeriod(int period, CallbackOnComplete done) throws Exception {
        done.complete();
    }

    /**
     * Whether {@link #endOfData()} and {@link #barrier()} push the op that calls {@link #endPeriod}.
     * False by default; a distributed sync store returns true.
     */
    protected boolean endsPeriods() {
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

    /**
     * The rendezvous of {@link #barrier()}; called on the caller's thread after the barrier's period
     * ended (its {@link #endPeriod} op is pushed and later calls are in the next period).
     */
    protected abstract void doBarrier();

    /**
     * Releases the implementation's resources (connections, members); called once by {@link #close()},
     * after every op of this store has finished. It must not throw for a store that is already broken.
     */
    protected abstract void closeStore();

    // ---------------------------------------------------------------- for implementations

    /** The store's statistics, which {@link KVStore#stats()} shows: an implementation adds what only it sees. */
    @Override
    public final StoreStats stats() {
        return stats;
    }

    /** The settings the store was opened with. */
    protected final KVStoreSettings settings() {
        return settings;
    }

    /**
     * Continues from a checkpoint: this store's calls start in {@code period} (its rounds after the
     * checkpoint's), and, if {@code checkpoint} is not null (the rank that read it), each {@code init}
     * takes the checkpoint's value, state and update count for its key (a key it lacks, or of another
     * length, is refused at the {@code init}). Call from the constructor, before any call.
     *
     * @param source the checkpoint's path, for messages
     */
    protected final void resumeAt(int period, Checkpoint checkpoint, String source) {
        this.period = period;
        this.resumed = checkpoint;
        this.resumedFrom = source;
    }

    /**
     * Reads every key's value, updater state and update count as of the end of period {@code period} for
     * {@link #checkpoint}, on the caller's thread, after every op this worker pushed before has run. The
     * default reads the keys as held here (a store that keeps its keys here, as {@code local}); a
     * distributed store reads them from their owners.
     *
     * @throws Exception to fail the checkpoint
     */
    protected List<Checkpoint.Entry> snapshot(List<Key> keys, int period) throws Exception {
        List<Checkpoint.Entry> out = new ArrayList<>();
        afterOwnOps("checkpoint: read the keys", keys, () -> {
            for (Key k : keys) {
                float[] value = new float[k.length()];
                k.stored().get(value);
                float[] state = k.stateCopy();
                out.add(new Checkpoint.Entry(k.name(), value, state.length / k.length(), state, k.steps()));
            }
        });
        return out;
    }

    /**
     * Checks {@code updater} before {@link #setUpdater} takes it: a store that ships updaters to other
     * processes refuses a class the receiving side would not accept. Does nothing by default.
     *
     * @param updater the updater being set, not null
     * @throws IllegalArgumentException if this store cannot use {@code updater}
     */
    protected void checkUpdater(Updater updater) {
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
        return keys.sorted();
    }

    /**
     * Applies {@link #updater()} (or assignment when none is set) to the key's {@link Key#stored()} from
     * its {@link Key#merged()}, with the state the key keeps ({@link Key#updaterState}): what a store
     * that keeps its keys here does with a push. Call only from an op holding {@link Key#storeVar()}.
     *
     * @throws KVStoreException if the updater throws, or does not suit the key's state (naming the key,
     *     the rank and the updater)
     */
    protected final void applyUpdater(Key key) {
        applyUpdater(key, key.merged());
    }

    /**
     * As {@link #applyUpdater(Key)} with {@code sum} (the key's length, read only) in place of the key's
     * merged push: what a store whose workers each update their own copy from a round's sum does.
     */
    protected final void applyUpdater(Key key, FloatBuffer sum) {
        Updater u = updater == null ? Updater.assign() : updater;
        try {
            FloatBuffer state = key.updaterState(u.stateFloats());
            u.update(key.name(), sum.asReadOnlyBuffer(), key.stored(), state, key.nextStep());
        } catch (RuntimeException | Error e) {
            throw new KVStoreException(key.name(), rank(), "updater " + u + " failed", e);
        }
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
        refuseWhileCapturing("init('" + key + "')");
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
            Checkpoint c = resumed;
            Checkpoint.Entry entry = c == null ? null : c.require(key, value.length(), resumedFrom);
            Key k = new Key(engine, key, (int) value.length(), period);
            ops.prepare(k);
            keys.add(k);
            ops.init(k, value, memcpy, entry, c == null ? 0 : Rounds.of(c.period(), 0));
        } finally {
            gate.readLock().unlock();
        }
    }

    @Override
    public final void push(String key, List<DeviceArray> values, int priority) {
        gate.readLock().lock();
        try {
            Key k = checked("push", key, values, "values");
            mayPush("push", k);
            ops.push(k, values, priority);
        } finally {
            gate.readLock().unlock();
        }
    }

    @Override
    public final void pull(String key, List<DeviceArray> outs, int priority) {
        gate.readLock().lock();
        try {
            Key k = checked("pull", key, outs, "outs");
            ops.pull(k, outs, priority);
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
            mayPush("pushPull", k);
            ops.push(k, values, priority);
            ops.pull(k, outs, priority);
        } finally {
            gate.readLock().unlock();
        }
    }

    /**
     * Checks that this worker may push now and notes that it pushed (a push recorded in a capture counts:
     * its replays push). A recorded push is not refused after {@code endOfData()}: its replay may come
     * after the next barrier, so its send checks when it runs instead.
     */
    private void mayPush(String call, Key k) {
        boolean recording = engine.isCapturing();
        synchronized (callLock) { // as setUpdater's check and barrier's new period: no push slips past either
            if (endOfData && !recording) {
                throw new IllegalStateException("cannot " + call + " key '" + k.name() + "': rank " + rank()
                        + " signalled endOfData(); call barrier() before pushing again");
            }
            pushed = true;
        }
    }

    @Override
    public final void setUpdater(Updater updater) {
        Objects.requireNonNull(updater, "updater");
        checkUpdater(updater);
        refuseWhileCapturing("setUpdater(" + updater + ")");
        gate.readLock().lock();
        try {
            ensureOpen("setUpdater");
            synchronized (callLock) {
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
        refuseWhileCapturing("barrier()");
        gate.readLock().lock(); // not held in the rendezvous: close() must not wait for the other workers
        try {
            ensureOpen("barrier");
            synchronized (callLock) {
                List<Key> ks = keys.sorted();
                pushEndPeriod(ks, period, "barrier");
                period++;
                ops.markPeriod(ks, period, false);
                endOfData = false;
            }
        } finally {
            gate.readLock().unlock();
        }
        doBarrier();
    }

    @Override
    public final void endOfData() {
        refuseWhileCapturing("endOfData()");
        gate.readLock().lock();
        try {
            ensureOpen("endOfData");
            synchronized (callLock) {
                if (!endOfData) {
                    endOfData = true;
                    List<Key> ks = keys.sorted();
                    pushEndPeriod(ks, period, "endOfData");
                    ops.markPeriod(ks, period, true);
                }
            }
        } finally {
            gate.readLock().unlock();
        }
    }

    private void pushEndPeriod(List<Key> ks, int p, String call) {
        if (endsPeriods()) {
            ops.endPeriod(ks, p, call);
        }
    }

    @Override
    public final void checkpoint(Path path) {
        Objects.requireNonNull(path, "path");
        ensureOpen("checkpoint");
        refuseWhileCapturing("checkpoint(" + path + ")");
        if (rank() != 0) {
            throw new IllegalStateException("checkpoint(" + path + ") on rank " + rank() + ": rank 0 writes the "
                    + "checkpoints (call barrier(); if (rank() == 0) checkpoint(path); barrier(); on every worker)");
        }
        int p;
        List<Key> ks;
        gate.readLock().lock();
        try {
            ensureOpen("checkpoint");
            p = period;
            ks = keys.sorted();
        } finally {
            gate.readLock().unlock();
        }
        List<Checkpoint.Entry> entries;
        try {
            awaitKeysFor(ks, "checkpoint " + path);
            entries = snapshot(ks, p);
        } catch (KVStoreException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank(), "interrupted while writing the checkpoint " + path, e);
        } catch (Exception e) {
            throw new KVStoreException(null, rank(), "checkpoint " + path + " failed", e);
        }
        try {
            new Checkpoint(p, String.valueOf(updater), entries).write(path);
        } catch (java.io.UncheckedIOException e) {
            throw new KVStoreException(null, rank(), e.getMessage(), e);
        }
        LOG.info("rank 0 wrote the {} store's checkpoint of period {} ({} keys) to {}", type, p, entries.size(), path);
    }

    @Override
    public final int period() {
        return period;
    }

    @Override
    public final Set<String> keys() {
        return keys.names();
    }

    @Override
    public final int length(String key) {
        Objects.requireNonNull(key, "key");
        return keys.known(key, "length").length();
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final void close() {
        refuseWhileCapturing("close()");
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

    // ---------------------------------------------------------------- checks and close

    private Key checked(String call, String key, List<DeviceArray> arrays, String what) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(arrays, what);
        ensureOpen(call);
        return keys.checked(call, key, arrays, what);
    }

    /**
     * Refuses {@code call} while the calling thread records a capture of the store's engine: only
     * {@code push}, {@code pull} and {@code pushPull} can be recorded, because only their ops decide at
     * run time what the call would decide (their rounds); the others change or wait on the store's state
     * at the call.
     *
     * @throws IllegalStateException naming the call, and what to do instead
     */
    private void refuseWhileCapturing(String call) {
        if (engine.isCapturing()) {
            throw new IllegalStateException(call + " on the " + type + " store (rank " + rank() + ") was called while "
                    + "this thread records a capture of engine '" + engine.name() + "': only push, pull and pushPull "
                    + "can be recorded; call " + call + " before opening the capture or after closing it");
        }
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
        List<VarHandle> vars = keys.vars();
        try {
            afterOwnOps("kvstore close: wait for the store's ops", null, () -> { });
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

    /**
     * Waits for every op on {@code ks} through an op that reads their variables and is skipped if one
     * carries a failure (a failed push): {@code what} then fails with that cause, instead of going on
     * with a value that missed the failed push. The failure is reported here (the engine reports each
     * failure once).
     *
     * @throws KVStoreException naming {@code what} and the cause
     */
    private void awaitKeysFor(List<Key> ks, String what) {
        List<VarHandle> vars = new ArrayList<>();
        ks.forEach(k -> vars.addAll(k.vars()));
        VarHandle fence = engine.newVariable("kvstore " + what + ": the keys' ops are done");
        try {
            engine.pushSync(rc -> { }, Context.cpu(), vars, List.of(fence), FnProperty.NORMAL, 0,
                    "kvstore " + what + ": wait for the keys' ops");
            engine.waitForVar(fence);
        } catch (EngineException e) {
            throw new KVStoreException(null, rank(), what + ": an op of the store failed, so a key's value "
                    + "misses a push; nothing was written", e);
        } finally {
            engine.deleteVariable(rc -> { }, Context.cpu(), fence);
        }
    }

    /**
     * Runs {@code body} in a {@link FnProperty#NO_SKIP} op reading every variable of {@code keys} (null:
     * every key's, staging included), so after every op pushed on them before, and waits for it
     * (logging every {@code timeoutMs} that it still waits).
     */
    private void afterOwnOps(String what, List<Key> of, Runnable body) throws InterruptedException {
        List<VarHandle> vars = new ArrayList<>();
        if (of == null) {
            vars.addAll(keys.vars());
        } else {
            of.forEach(k -> vars.addAll(k.vars()));
        }
        if (vars.isEmpty()) {
            body.run();
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        RuntimeException[] failed = new RuntimeException[1];
        engine.pushSync(rc -> {
            try {
                body.run();
            } catch (RuntimeException e) {
                failed[0] = e;
            } finally {
                done.countDown();
            }
        }, Context.cpu(), vars, List.of(), FnProperty.NO_SKIP, 0, what);
        while (!done.await(settings.timeoutMs(), TimeUnit.MILLISECONDS)) {
            LOG.warn("{} store (rank {}): {}: its ops are still running after {} ms; waiting on", type, rank(), what,
                    settings.timeoutMs());
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }
}
