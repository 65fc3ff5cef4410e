package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;

/**
 * Rank 0's init of a key's chunk: the first init wins (version 1) and later ones change nothing, so
 * a repeated init never overwrites trained weights. Pushes that arrived before it complete now.
 */
public final class InitOp extends KeyOp {
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    private float[] value;
    /** A resumed key: the checkpoint's updater state for this chunk, update count and round. */
    private float[] updaterState = new float[0];
    private long steps;
    private long round;

    /** For Hazelcast's factory. */
    public InitOp() {
    }

    /** An init of the chunk at {@code offset} of {@code key}. */
    public InitOp(String key, int offset, int workers, boolean async, float[] value) {
        super(key, offset, workers, async);
        this.value = value;
    }

    /** An init of a chunk resumed from a checkpoint: its value, updater state and update count as of {@code round}. */
    public static InitOp resumed(String key, int offset, int workers, boolean async, float[] value, float[] updaterState,
                                 long steps, long round) {
        InitOp op = new InitOp(key, offset, workers, async, value);
        op.updaterState = updaterState;
        op.steps = steps;
        op.round = round;
        return op;
    }

    @Override
    Reply apply(KeyState state) {
        if (state.rounds.isReady()) {
            return state.length == value.length ? Reply.ok(state.rounds.completed())
                    : Reply.error("key '" + key + "' was initialised with " + state.length + " floats; this init has "
                    + value.length);
        }
        String mismatch = state.rounds.firstMismatch(value.length, a -> a.length);
        if (mismatch != null) {
            state.error = "key '" + key + "': " + mismatch;
            return Reply.error(state.error);
        }
        state.init(value, updaterState, steps, round);
        return Reply.ok(state.rounds.completed());
    }

    @Override
    public int getClassId() {
        return StateFactory.INIT;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeFloatArray(value);
        out.writeFloatArray(updaterState);
        out.writeLong(steps);
        out.writeLong(round);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        value = in.readFloatArray();
        updaterState = in.readFloatArray();
        steps = in.readLong();
        round = in.readLong();
    }
}
