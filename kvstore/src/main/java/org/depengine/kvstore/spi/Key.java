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
import org.depengine.kvstore.KVStore;

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
    private long pushes;
    /** The round of the last send op that ran; written and read only in ops holding storeVar. */
    volatile long lastSent;

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

    /** A host buffer that one value of a multi-value push is gathered into before the sum. */
    record Staging(VarHandle var, ByteBuffer buffer) {
    }
}
