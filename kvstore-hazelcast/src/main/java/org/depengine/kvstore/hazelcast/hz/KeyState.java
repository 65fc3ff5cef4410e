package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.hazelcast.protocol.Sums;
import org.depengine.kvstore.hazelcast.protocol.UpdatedValue;

/**
 * One key's (or one chunk's) map entry on the member that owns its partition ({@code updateOn=server} and
 * {@code dist_async}): its rounds ({@link RoundState}), its value with the updater's state
 * ({@link UpdatedValue}), and what Hazelcast's delivery needs (who waits for the next change, who the
 * latest store is for). Mutated only inside entry processors, which Hazelcast runs one at a time per key;
 * each completed round's contributions are summed in rank order and the updater run at once.
 */
public final class KeyState implements IdentifiedDataSerializable {
    /**
     * The chunks whose entry events carry the state (so a waiting pull takes the value from its event with
     * no read of its own): at most this many floats (64 KiB). A larger chunk's event carries nothing and its
     * waiting pulls read it, so its value is not shipped in both the event and the read.
     */
    public static final int VALUE_EVENT_FLOATS = 16 * 1024;

    /** The user's key and where this chunk starts in its array: what the updater is told. */
    String key = "";
    int offset;
    /** The array length, or -1 before the init lands. */
    int length = -1;
    RoundState<float[]> rounds;
    /** The value and the updater's state, null before the init lands. */
    UpdatedValue value;
    /** The updater of the latest push: it completes rounds that wait for the init. */
    Updater updater;
    /** A shape mismatch seen on a push that arrived before the init, reported to pulls. */
    String error;
    /**
     * An elastic job's latest view this chunk was told of (a worker dropped from it, {@link RankOp#dropped}),
     * 0 before any: every reply carries it, so that a worker holds a value summed over a view it has not
     * moved to yet until it has ({@link Reply#epoch}).
     */
    int viewEpoch;
    /**
     * Set once an op has stored this object in the map; not serialized. Still set when the next op gets the
     * state, it shows that op holds the map's own object (the OBJECT in-memory format, not a copy), so a
     * change it makes in place stays without storing it again. A copy (deserialized: after a migration, on
     * a backup) starts unset, and its first op stores it.
     */
    boolean storedInPlace;
    /**
     * The ranks that wait for a change of this chunk since it was last stored: a read of theirs answered
     * NOT_READY, or ({@code dist_sync}, a chunk of at most {@link #VALUE_EVENT_FLOATS}) their push left its
     * round pending (their pull follows). The next change that completes a round is stored, so that they
     * hear of it (an entry event). Not serialized: a copy starts unset and its first op tells every rank.
     */
    BitSet waiting = new BitSet();
    /**
     * The ranks the latest store is for: {@link ToldRanks} sends its entry event to these only. Serialized
     * (the event filter may read a copy); every rank for a store that is not a push's.
     */
    BitSet told = new BitSet();

    /** For Hazelcast's factory. */
    public KeyState() {
    }

    KeyState(int workers, boolean async) {
        this.rounds = new RoundState<>(workers, async);
    }

    /** A copy for a backup ({@link StateBackup}): it shares nothing a later op changes in place. */
    KeyState copy() {
        KeyState c = new KeyState();
        c.key = key;
        c.offset = offset;
        c.length = length;
        c.rounds = rounds.copy();
        c.value = value == null ? null : value.copy();
        c.updater = updater;
        c.error = error;
        c.viewEpoch = viewEpoch;
        c.told = (BitSet) told.clone();
        return c;
    }

    /** Whether this chunk's entry events carry the state ({@link #VALUE_EVENT_FLOATS}). */
    boolean eventsCarryValue() {
        return length <= VALUE_EVENT_FLOATS;
    }

    /** What a read of {@code op} would answer now; for a waiting read's entry event, a copy of the state. */
    public Reply answer(ReadOp op) {
        return op.apply(this).inView(viewEpoch);
    }

    /** The init landed with this value and state as of {@code round}: the rounds waiting for it complete. */
    void init(float[] v, float[] state, long steps, long round) {
        length = v.length;
        value = new UpdatedValue(v, state, steps);
        apply(rounds.ready(round));
    }

    /** Runs the updater on each completed round's rank-order sum. */
    void apply(List<RoundState.Completed<float[]>> completed) {
        for (RoundState.Completed<float[]> c : completed) {
            if (!c.slots().isEmpty()) {
                value.apply(updater, key, Sums.of(c.slots()));
            }
        }
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
        RoundsWire.write(out, rounds);
        out.writeString(error);
        out.writeInt(viewEpoch);
        UpdaterWire.write(out, updater);
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeFloatArray(value.value());
            out.writeFloatArray(value.state());
            out.writeLong(value.steps());
        }
        out.writeLongArray(told.toLongArray());
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        key = in.readString();
        offset = in.readInt();
        length = in.readInt();
        rounds = RoundsWire.read(in);
        error = in.readString();
        viewEpoch = in.readInt();
        updater = RefusedUpdaters.read(in, "the state of key '" + key + "', copied to this member");
        if (in.readBoolean()) {
            value = new UpdatedValue(in.readFloatArray(), in.readFloatArray(), in.readLong());
        }
        told = BitSet.valueOf(in.readLongArray());
    }
}
