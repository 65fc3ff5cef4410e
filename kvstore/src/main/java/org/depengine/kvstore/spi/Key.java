package org.depengine.kvstore.spi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    /** The period of this worker's last push of the key, or of its init before any push. */
    private int period;
    /** This worker's pushes of the key in {@link #period}. */
    private long pushes;
    /** The round of the last send op that ran; written and read only in ops holding storeVar. */
    volatile long lastSent;
    /** The updater's state and update count where the key lives here (local): guarded by storeVar, as stored. */
    private float[] state = new float[0];
    private long steps;
    private long initRound;
    private boolean resumed;

    Key(Engine engine, String name, int length, int initPeriod) {
        this.name = name;
        this.period = initPeriod;
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
     * The round ({@link Rounds}) of this worker's next push of the key, a push called in {@code period}:
     * the next index of that period. Taken at the call, so later calls see it at once.
     */
    synchronized long nextRound(int period) {
        if (period != this.period) {
            this.period = period;
            pushes = 0;
        }
        return Rounds.of(period, ++pushes);
    }

    /**
     * The round ({@link Rounds}) a pull called in {@code period} reads: this worker's last push of the
     * key in that period; before any, index 0 of the period (the whole previous period), or round 0 (the
     * init) in the period the key was initialised in, which has no earlier rounds.
     */
    synchronized long lastRound(int period) {
        if (period != this.period) {
            return Rounds.of(period, 0);
        }
        return pushes == 0 ? 0 : Rounds.of(period, pushes);
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

    /** A host buffer that one value of a multi-value push is gathered into before the sum. */
    record Staging(VarHandle var, ByteBuffer buffer) {
    }
}
