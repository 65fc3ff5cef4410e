package org.depengine.kvstore.spi;

import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.depengine.api.AsyncFn;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.MembershipListener;
import org.depengine.kvstore.Updater;

/**
 * What every {@link KVStore} shares: argument checks, the key registry, the closed state, the membership
 * listeners, and the ops that move data between the devices and the host. An implementation only says what
 * happens to a key's host arrays: {@link #sendInit}, {@link #send} and {@link #fetch}, each an asynchronous call.
 *
 * <h2>The ops each call pushes</h2>
 * {@link StoreOps} pushes them (its Javadoc has the table): on one key, every call's ops run in call order
 * (they all touch {@link Key#storeVar()}), and no op ever blocks a thread on the network: the hooks below
 * start their calls and complete from the calls' callbacks.
 *
 * <h2>Rounds</h2>
 * Each op takes its round ({@link Rounds}, which says how) when it runs, in the calls' order per key; the
 * hooks get it as an argument. In {@code dist_sync}, {@link #fetch} completes once that round has landed.
 *
 * <h2>In a capture</h2>
 * {@code push}, {@code pull} and {@code pushPull} are recorded like any push; the other calls change or
 * wait on the store's state at the call and are refused in a capture ({@link KVStore}'s Javadoc).
 *
 * <h2>Failures</h2>
 * A hook fails its op by calling {@code done.fail(cause)} or by throwing, and never leaves {@code done}
 * uncalled nor blocks its thread (the package documentation says more).
 *
 * <h2>Thread-safety</h2>
 * The public methods may be called from any thread. Hooks are called on engine threads, never
 * concurrently for one key (the key's variables order them), concurrently for different keys.
 */
public abstract class AbstractKVStore implements KVStore {
    private final Engine engine;
    private final String type;
    private final KVStoreSettings settings;
    private final KeyRegistry keys;
    private final StoreOps ops;
    private final OwnOps ownOps;
    private final StoreStats stats = new StoreStats();
    private final Gate gate = new Gate();
    private final CallState calls = new CallState();
    private final MembershipListeners listeners = new MembershipListeners();
    /** The checkpoint this store resumed from, on the rank that read it (null otherwise), and its path. */
    private volatile Checkpoint resumed;
    private volatile String resumedFrom;
    /** A store of {@code type} opened with {@code settings}, pushing its ops to {@code engine}; none may be null. */
    @SuppressWarnings("this-escape") // StoreOps only reads the engine (assigned above) here; it uses the store at pushes
    protected AbstractKVStore(Engine engine, String type, KVStoreSettings settings) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.type = Objects.requireNonNull(type, "type");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.keys = new KeyRegistry(type);
        this.ops = new StoreOps(this);
        this.ownOps = new OwnOps(this, type, keys);
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
        calls.resumeAt(period);
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
        return ownOps.readHere(keys);
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
        return calls.updater();
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
        Updater u = calls.updater() == null ? Updater.assign() : calls.updater();
        try {
            FloatBuffer state = key.updaterState(u.stateFloats());
            u.update(key.name(), sum.asReadOnlyBuffer(), key.stored(), state, key.nextStep());
        } catch (RuntimeException | Error e) {
            throw new KVStoreException(key.name(), rank(), "updater " + u + " failed", e);
        }
    }

    /**
     * Tells every {@link #onMembershipChange} listener of {@code change}, on this thread, in registration
     * order, logging what one throws: call it on the store's event thread, once per view moved to, in epoch order,
     * after {@link #rank()} and {@link #numWorkers()} answer the new view and before any of its rounds
     * completes here ({@link MembershipListener}'s contract). None is called after close; null is refused.
     *
     * @throws IllegalStateException if {@code change} is not of an epoch after the last one delivered, or does
     *     not match rank() and numWorkers() (the store's bug: no listener is called)
     */
    protected final void membershipChanged(MembershipChange change) {
        listeners.deliver(change, rank(), numWorkers(), type + " store");
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
        KeyRegistry.checkNew(key, value);
        Memcpy memcpy = value.device().requirePrimitive(Memcpy.class);
        gate.pass(() -> {
            ensureOpen("init");
            Checkpoint c = resumed;
            Checkpoint.Entry entry = c == null ? null : c.require(key, value.length(), resumedFrom);
            Key k = new Key(engine, key, (int) value.length(), calls.period());
            ops.prepare(k);
            keys.add(k);
            ops.init(k, value, memcpy, entry, c == null ? 0 : Rounds.of(c.period(), 0));
        });
    }

    @Override
    public final void push(String key, List<DeviceArray> values, int priority) {
        gate.pass(() -> {
            Key k = checked("push", key, values, "values");
            mayPush("push", k);
            ops.push(k, values, priority);
        });
    }

    @Override
    public final void pull(String key, List<DeviceArray> outs, int priority) {
        gate.pass(() -> {
            Key k = checked("pull", key, outs, "outs");
            ops.pull(k, outs, priority);
        });
    }

    @Override
    public final void pushPull(String key, List<DeviceArray> values, List<DeviceArray> outs, int priority) {
        gate.pass(() -> {
            Key k = checked("pushPull", key, values, "values");
            checked("pushPull", key, outs, "outs");
            mayPush("pushPull", k);
            ops.push(k, values, priority);
            ops.pull(k, outs, priority);
        });
    }

    /** Checks that this worker may push now and notes that it pushed ({@link CallState#push}). */
    private void mayPush(String call, Key k) {
        calls.push(engine.isCapturing(), () -> "cannot " + call + " key '" + k.name() + "': rank " + rank()
                + " signalled endOfData(); call barrier() before pushing again");
    }

    @Override
    public final void setUpdater(Updater updater) {
        Objects.requireNonNull(updater, "updater");
        checkUpdater(updater);
        refuseWhileCapturing("setUpdater(" + updater + ")");
        gate.pass(() -> {
            ensureOpen("setUpdater");
            calls.setUpdater(updater, () -> "setUpdater(" + updater + ") after the first push on this " + type
                    + " store: set the updater before pushing");
        });
    }

    @Override
    public final void barrier() {
        refuseWhileCapturing("barrier()");
        gate.pass(() -> { // not held in the rendezvous: close() must not wait for the other workers
            ensureOpen("barrier");
            calls.barrier(p -> {
                List<Key> ks = keys.sorted();
                pushEndPeriod(ks, p, "barrier");
                ops.markPeriod(ks, p + 1, false);
            });
        });
        doBarrier();
    }

    @Override
    public final void endOfData() {
        refuseWhileCapturing("endOfData()");
        gate.pass(() -> {
            ensureOpen("endOfData");
            calls.endOfData(p -> {
                List<Key> ks = keys.sorted();
                pushEndPeriod(ks, p, "endOfData");
                ops.markPeriod(ks, p, true);
            });
        });
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
        int[] p = new int[1];
        List<Key> ks = new java.util.ArrayList<>();
        gate.pass(() -> {
            ensureOpen("checkpoint");
            p[0] = calls.period();
            ks.addAll(keys.sorted());
        });
        ownOps.checkpoint(path, p[0], ks, String.valueOf(calls.updater()));
    }

    @Override
    public final Registration onMembershipChange(MembershipListener listener) {
        Objects.requireNonNull(listener, "listener");
        ensureOpen("onMembershipChange");
        return listeners.add(listener); // a close() racing this call leaves the registration inert
    }

    @Override
    public final int period() {
        return calls.period();
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
        return gate.isClosed();
    }

    @Override
    public final void close() {
        refuseWhileCapturing("close()");
        if (!gate.close()) { // waits for calls in progress: their ops are pushed before the fence below
            return;
        }
        listeners.close();
        try {
            ownOps.awaitOwnOps();
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
     * Refuses {@code call} while this thread records a capture of the store's engine: only push, pull and
     * pushPull decide at run time what the call would (their rounds); the others act on the store's state at
     * the call. @throws IllegalStateException naming the call, and what to do instead
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
        if (gate.isClosed()) {
            throw new IllegalStateException(call + " on a closed " + type + " store (rank " + rank() + ")");
        }
    }
}
