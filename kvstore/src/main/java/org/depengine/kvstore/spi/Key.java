package org.depengine.kvstore.spi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.AsyncFn;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.Checkpoint;

/**
 * One key: its name, length, variables and host arrays. The arrays are for the hooks, which run in
 * ops that hold the matching variables. Thread-safe.
 */
public final class Key {
    private final String name;
    private final int length;
    private final VarHandle storeVar;
    private final VarHandle mergedVar;
    private final ByteBuffer stored;
    private final ByteBuffer merged;
    private final Map<String, Staging> staging = new ConcurrentHashMap<>();
    /** The period the key was initialised in. */
    private final int initPeriod;
    /**
     * The period of the ops running now on the key and {@link #mergedVar()}'s version when it started:
     * decided when the ops run (see {@link #sendRound()}), written only by ops that write storeVar.
     */
    private int opPeriod;
    private long periodBase;
    /** Whether this worker's endOfData() for {@link #opPeriod} has been passed, in op order (storeVar). */
    private boolean ended;
    /** The names of the key's store ops, built once per key (not per call). */
    final OpNames names;
    /** The variable lists of the key's store ops, built once. */
    final OpVars opVars;
    /** The key's send, check and fetch op bodies, built once by the store's init (they take their rounds when they run). */
    Fns fns;
    /** The round of the last send op that ran; written and read only in ops holding storeVar. */
    volatile long lastSent;
    /** The updater's state and update count where the key lives here (local): guarded by storeVar, as stored. */
    private float[] state = new float[0];
    private long steps;
    private long initRound;
    private boolean resumed;

    /**
     * A key of {@code length} floats initialised in period {@code initPeriod}, with new variables of
     * {@code engine}: made by {@link AbstractKVStore#init}, and by protocol tests that drive a store's hooks.
     */
    public Key(Engine engine, String name, int length, int initPeriod) {
        this.name = name;
        this.initPeriod = initPeriod;
        this.opPeriod = initPeriod;
        this.length = length;
        this.names = new OpNames(name);
        storeVar = engine.newVariable("kvstore[" + name + "].stored");
        mergedVar = engine.newVariable("kvstore[" + name + "].merged");
        stored = ByteBuffer.allocateDirect(length * Float.BYTES).order(ByteOrder.nativeOrder());
        merged = ByteBuffer.allocateDirect(length * Float.BYTES).order(ByteOrder.nativeOrder());
        opVars = new OpVars(List.of(storeVar), List.of(mergedVar), List.of(storeVar, mergedVar));
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

    /**
     * The updater's state where this store keeps it ({@code local}): {@code floats} per element, zeros
     * the first time. Call only from an op holding {@link #storeVar()}.
     *
     * @throws IllegalStateException if the key holds state of another size (resumed from a checkpoint
     *     written with another updater)
     */
    public FloatBuffer updaterState(int floats) {
        int n = floats * length;
        if (state.length != n) {
            if (state.length != 0) {
                throw new IllegalStateException("key '" + name + "' holds " + state.length / length + " floats of "
                        + "optimizer state per element, the updater keeps " + floats + ": use the updater the "
                        + "checkpoint was written with");
            }
            state = new float[n];
        }
        return FloatBuffer.wrap(state);
    }

    /** Counts an update and returns its step (from 1); call only from an op holding {@link #storeVar()}. */
    public long nextStep() {
        return ++steps;
    }

    /** The updates so far; call only from an op holding {@link #storeVar()}. */
    public long steps() {
        return steps;
    }

    /** The state (a copy), as {@link #updaterState}; call only from an op holding {@link #storeVar()}. */
    public float[] stateCopy() {
        return state.clone();
    }

    /**
     * The round the key's init stands for: 0, or for a key resumed from a checkpoint the checkpoint's
     * round (index 0 of its period); call only from an op holding {@link #storeVar()}.
     */
    public long initRound() {
        return initRound;
    }

    /** The period the key was initialised in: its rounds are of it and later ones. */
    public int initPeriod() {
        return initPeriod;
    }

    /**
     * Takes an initial value's companions as another worker sent them ({@code updateOn=worker}: rank 0's
     * init, resumed from its checkpoint): the updater's state, the update count and the round the value
     * stands for. Call only from the init's op, which holds {@link #storeVar()}.
     */
    public void restoreFrom(float[] state, long steps, long round) {
        this.state = state.clone();
        this.steps = steps;
        this.initRound = round;
        this.resumed = round != 0 || steps != 0 || state.length != 0;
    }

    /** Whether the init took the key from a checkpoint; call only from an op holding {@link #storeVar()}. */
    public boolean resumed() {
        return resumed;
    }

    /** Takes the checkpoint's value, state and update count as the init's; only from an op holding storeVar. */
    void restore(Checkpoint.Entry e, long round) {
        stored().put(e.value());
        this.state = e.state().clone();
        this.steps = e.steps();
        this.initRound = round;
        this.resumed = true;
    }

    /**
     * The round ({@link Rounds}) of the push whose send runs now: the push's index in the current
     * period is the number of writes of {@link #mergedVar()} (one per push, skipped ones included) since
     * the period began. Call only from an op that reads mergedVar (so that the next push's write waits
     * for it) and is ordered by storeVar.
     */
    long sendRound() {
        return Rounds.of(opPeriod, mergedVar.version() - periodBase);
    }

    /**
     * The round a pull whose op runs now reads: this worker's last push of the key in the current period;
     * before any, index 0 of the period (the whole previous period), or round 0 (the init) in the period
     * the key was initialised in, which has no earlier rounds. Same rule for calling as {@link #sendRound()}.
     */
    long pullRound() {
        long pushes = mergedVar.version() - periodBase;
        if (pushes == 0) {
            return opPeriod == initPeriod ? 0 : Rounds.of(opPeriod, 0);
        }
        return Rounds.of(opPeriod, pushes);
    }

    /** Starts {@code period} for the ops after this one; only from an op reading mergedVar and writing storeVar. */
    void startPeriod(int period) {
        opPeriod = period;
        periodBase = mergedVar.version();
        ended = false;
    }

    /** This worker's endOfData() for the current period, in op order; only from an op writing storeVar. */
    void endData() {
        ended = true;
    }

    /** Whether this worker signalled endOfData() in the current period; only from an op ordered by storeVar. */
    boolean dataEnded() {
        return ended;
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

    /** The names of a key's store ops: push (its send), pull (its fetch), the sum and check of a push, the copies. */
    static final class OpNames {
        final String push;
        final String pull;
        final String sum;
        final String check;
        /** The copy of a push's value i to the host, and a pull's copy to its out i. */
        final IndexedNames copyIn;
        final IndexedNames copyOut;

        OpNames(String key) {
            push = "kvstore push " + key;
            pull = "kvstore pull " + key;
            sum = push + ": sum the values";
            check = push + ": check it was sent";
            copyIn = new IndexedNames(push + ": copy value ", " to host");
            copyOut = new IndexedNames(pull + ": copy to out ", "");
        }
    }

    /** The variable lists of a key's store ops. */
    record OpVars(List<VarHandle> store, List<VarHandle> merged, List<VarHandle> storeAndMerged) {
    }

    /** Names {@code prefix + i + suffix}, each built once, on first use. */
    static final class IndexedNames {
        private final String prefix;
        private final String suffix;
        private volatile String[] names = new String[0];

        IndexedNames(String prefix, String suffix) {
            this.prefix = prefix;
            this.suffix = suffix;
        }

        String get(int i) {
            String[] ns = names;
            if (i < ns.length) {
                return ns[i];
            }
            synchronized (this) {
                ns = names;
                if (i >= ns.length) {
                    String[] grown = Arrays.copyOf(ns, i + 1);
                    for (int j = ns.length; j <= i; j++) {
                        grown[j] = prefix + j + suffix;
                    }
                    names = grown;
                    ns = grown;
                }
                return ns[i];
            }
        }
    }

    /** The op bodies of the key's send, check (of a skipped push) and fetch. */
    record Fns(AsyncFn send, AsyncFn check, AsyncFn fetch) {
    }

    /** A host buffer that one value of a multi-value push is gathered into before the sum. */
    record Staging(VarHandle var, ByteBuffer buffer) {
    }
}
