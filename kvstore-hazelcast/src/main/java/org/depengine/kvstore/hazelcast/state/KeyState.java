package org.depengine.kvstore.hazelcast.state;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.spi.Rounds;

/**
 * One key's (or one chunk's) state, kept on the member that owns its partition and on one backup.
 * Mutated only inside entry processors, which Hazelcast runs one at a time per key.
 *
 * <p>Rounds ({@code dist_sync}): {@link #round} counts the completed rounds; round {@code r + 1}
 * collects one slot per rank and completes when every rank that has not signalled end of data has a
 * slot, and the init has landed. The slots are then summed in rank order (so every run sums the same
 * way), the updater runs, and the slots are dropped. A contribution to a completed round is ignored
 * and a repeated one overwrites its own slot: a retried call is harmless.
 */
public final class KeyState implements IdentifiedDataSerializable {
    /** The slot of a rank whose push of the round was skipped on its worker: present, adds nothing. */
    static final float[] SKIPPED = new float[0];

    /** The user's key and where this chunk starts in its array: what the updater is told. */
    String key = "";
    int offset;
    /** The array length, or -1 before the init lands. */
    int length = -1;
    /** 0 until rank 0's init lands, then 1: pulls of round 0 wait for it. */
    long initVersion;
    float[] value;
    /** Completed rounds (sync) or applied pushes (async). */
    long round;
    int workers;
    /** Per rank: the last period it has no more data for (end of data, or a barrier), -1 for none. */
    int[] endedPeriod;
    /** Pending rounds: round number → one slot per rank (null where the rank has not pushed yet). */
    final TreeMap<Long, float[][]> pending = new TreeMap<>();
    /** Why rounds after {@link #failedAfter} cannot complete (a worker was lost), or null. */
    String failure;
    long failedAfter;
    /** The updater of the latest push: it completes rounds that wait for the init. */
    Updater updater;
    /** dist_async: pushes are applied one by one; those that arrive before the init wait in {@link #pending}. */
    boolean async;
    /** A shape mismatch seen on a push that arrived before the init, reported to pulls. */
    String error;
    /** dist_async, per rank: the round of its last push taken in, so a retried call is taken in once. */
    long[] lastPushed;
    /**
     * The updater's state for this chunk ({@link Updater#stateFloats()} per element, empty before the
     * first stateful update) and its update count: changed in the same entry-processor step as
     * {@link #value}, so the backup and a checkpoint always see both of one step.
     */
    float[] updaterState = new float[0];
    long steps;
    /**
     * Set once an op has stored this object in the map; not serialized. Still set when the next op gets the
     * state, it shows that op holds the map's own object (the OBJECT in-memory format, not a copy), so a
     * change it makes in place stays without storing it again. A copy (deserialized: the BINARY format,
     * after a migration, on a backup) starts unset, and its first op stores it.
     */
    boolean storedInPlace;
    /**
     * The ranks that wait for a change of this chunk since it was last stored: a read of theirs answered
     * NOT_READY, or ({@code dist_sync}, a chunk of at most {@link #VALUE_EVENT_FLOATS}) their push left its
     * round pending (their pull follows). The next change that completes a round must be stored, so that
     * they hear of it (an entry event). Not serialized: a copy starts with {@link #storedInPlace} unset, and
     * its first op stores it and tells every rank.
     */
    BitSet waiting = new BitSet();
    /**
     * The ranks the latest store is for: {@link ToldRanks} sends its entry event to these only. Serialized
     * (the event filter may read a copy); every rank for a store that is not a push's.
     */
    BitSet told = new BitSet();

    /**
     * The chunks whose entry events carry the state (so a waiting pull takes the value from its event with
     * no read of its own): at most this many floats (64 KiB). A larger chunk's event carries nothing and its
     * waiting pulls read it, so its value is not shipped in both the event and the read.
     */
    public static final int VALUE_EVENT_FLOATS = 16 * 1024;

    /** For Hazelcast's factory. */
    public KeyState() {
    }

    KeyState(int workers) {
        this.workers = workers;
        this.endedPeriod = new int[workers];
        java.util.Arrays.fill(endedPeriod, -1);
        this.lastPushed = new long[workers];
    }

    /**
     * A copy for a backup ({@link StateBackup}): it shares nothing that a later op changes in place (the
     * value, the updater state, the per-rank arrays, the slot arrays of a pending round); the slots
     * themselves are never changed once in.
     */
    KeyState copy() {
        KeyState c = new KeyState();
        c.key = key;
        c.offset = offset;
        c.length = length;
        c.initVersion = initVersion;
        c.value = value == null ? null : value.clone();
        c.round = round;
        c.workers = workers;
        c.endedPeriod = endedPeriod.clone();
        pending.forEach((r, slots) -> c.pending.put(r, slots.clone()));
        c.failure = failure;
        c.failedAfter = failedAfter;
        c.updater = updater;
        c.async = async;
        c.error = error;
        c.lastPushed = lastPushed.clone();
        c.updaterState = updaterState.clone();
        c.steps = steps;
        c.told = (BitSet) told.clone();
        return c;
    }

    /** Whether this chunk's entry events carry the state ({@link #VALUE_EVENT_FLOATS}). */
    boolean eventsCarryValue() {
        return length <= VALUE_EVENT_FLOATS;
    }

    /**
     * What a read of {@code op} would answer now; for a waiting read's entry event, which carries a copy of
     * the state as of that change.
     */
    public Reply answer(ReadOp op) {
        return op.apply(this);
    }

    boolean initialised() {
        return initVersion > 0;
    }

    /** Completes every round whose slots are all in, in round order. */
    void completeRounds() {
        while (initialised() && !pending.isEmpty()) {
            Map.Entry<Long, float[][]> first = pending.firstEntry();
            // Rounds reach the owner in order from each rank, so the first pending one is the next to complete.
            if (!async && !complete(Rounds.period(first.getKey()), first.getValue())) {
                return;
            }
            float[] merged = null;
            boolean summed = false;
            for (float[] slot : first.getValue()) { // rank order: the same sum on every run
                if (slot == null || slot.length == 0) { // absent (end of data) or skipped
                    continue;
                }
                if (merged == null) {
                    merged = slot; // a single slot is the sum: the updater does not modify it (its contract)
                } else {
                    if (!summed) {
                        merged = merged.clone(); // the slots stay as they came: the backup replays the same
                        summed = true;
                    }
                    for (int i = 0; i < merged.length; i++) {
                        merged[i] += slot[i];
                    }
                }
            }
            pending.pollFirstEntry();
            if (merged != null) {
                // A chunk of a split key gets the updater on its own slice: updaters are element-wise.
                Updater u = updater == null ? Updater.assign() : updater;
                if (updaterState.length == 0) {
                    updaterState = new float[u.stateFloats() * value.length];
                }
                u.update(key, FloatBuffer.wrap(merged), FloatBuffer.wrap(value), FloatBuffer.wrap(updaterState), ++steps);
            }
            round = first.getKey();
        }
    }

    private boolean complete(int period, float[][] slots) {
        boolean any = false;
        for (int r = 0; r < workers; r++) {
            if (slots[r] == null && endedPeriod[r] < period) {
                return false;
            }
            any |= slots[r] != null;
        }
        return any;
    }

    /**
     * Why {@code u} cannot update this chunk: it holds state of another size (resumed from a checkpoint
     * written with another updater); null if it can.
     */
    String stateMismatch(Updater u) {
        int floats = (u == null ? Updater.assign() : u).stateFloats();
        if (updaterState.length == 0 || value == null || updaterState.length == floats * value.length) {
            return null;
        }
        return "key '" + key + "' holds " + updaterState.length / value.length + " floats of optimizer state per "
                + "element (from the checkpoint it resumed from), updater " + u + " keeps " + floats
                + ": set the updater the checkpoint was written with";
    }

    /** Whether every rank is done with {@code period} and no round of it (or before) is pending. */
    boolean periodDone(int period) {
        for (int e : endedPeriod) {
            if (e < period) {
                return false;
            }
        }
        return pending.isEmpty() || Rounds.period(pending.firstKey()) > period;
    }

    /** The ranks (not ended) whose slot for the next pending round is missing, for error messages. */
    String missingRanks() {
        if (pending.isEmpty()) {
            return "all (no push of the next round has arrived)";
        }
        Map.Entry<Long, float[][]> next = pending.firstEntry();
        float[][] slots = next.getValue();
        int period = Rounds.period(next.getKey());
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < workers; r++) {
            if (endedPeriod[r] < period && slots[r] == null) {
                sb.append(sb.length() == 0 ? "" : ",").append(r);
            }
        }
        return sb.toString();
    }

    @Override
    public int getFactoryId() {
        return StateFactory.ID;
    }

    @Override
    public int getClassId() {
        return StateFactory.KEY_STATE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(key);
        out.writeInt(offset);
        out.writeInt(length);
        out.writeLong(initVersion);
        out.writeFloatArray(value);
        out.writeLong(round);
        out.writeInt(workers);
        out.writeIntArray(endedPeriod);
        out.writeInt(pending.size());
        for (Map.Entry<Long, float[][]> e : pending.entrySet()) {
            out.writeLong(e.getKey());
            for (float[] slot : e.getValue()) {
                out.writeFloatArray(slot);
            }
        }
        out.writeString(failure);
        out.writeLong(failedAfter);
        out.writeString(error);
        UpdaterWire.write(out, updater);
        out.writeBoolean(async);
        out.writeLongArray(lastPushed);
        out.writeFloatArray(updaterState);
        out.writeLong(steps);
        out.writeLongArray(told.toLongArray());
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        key = in.readString();
        offset = in.readInt();
        length = in.readInt();
        initVersion = in.readLong();
        value = in.readFloatArray();
        round = in.readLong();
        workers = in.readInt();
        endedPeriod = in.readIntArray();
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            long r = in.readLong();
            float[][] slots = new float[workers][];
            for (int w = 0; w < workers; w++) {
                slots[w] = in.readFloatArray();
            }
            pending.put(r, slots);
        }
        failure = in.readString();
        failedAfter = in.readLong();
        error = in.readString();
        updater = RefusedUpdaters.read(in, "the state of key '" + key + "', copied to this member");
        async = in.readBoolean();
        lastPushed = in.readLongArray();
        updaterState = in.readFloatArray();
        steps = in.readLong();
        told = BitSet.valueOf(in.readLongArray());
    }
}
