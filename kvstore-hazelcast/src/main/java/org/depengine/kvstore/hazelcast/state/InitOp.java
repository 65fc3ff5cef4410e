package org.depengine.kvstore.hazelcast.state;

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

    /** For Hazelcast's factory. */
    public InitOp() {
    }

    /** An init of the chunk at {@code offset} of {@code key}. */
    public InitOp(String key, int offset, int workers, boolean async, float[] value) {
        super(key, offset, workers, async);
        this.value = value;
    }

    @Override
    Reply apply(KeyState state) {
        if (state.initialised()) {
            return state.length == value.length ? Reply.ok(state.round)
                    : Reply.error("key '" + key + "' was initialised with " + state.length + " floats; this init has "
                    + value.length);
        }
        for (float[][] slots : state.pending.values()) {
            for (float[] slot : slots) {
                if (slot != null && slot.length != value.length) {
                    state.error = "key '" + key + "': a push of " + slot.length + " floats arrived before the init of "
                            + value.length;
                    return Reply.error(state.error);
                }
            }
        }
        state.length = value.length;
        state.value = value;
        state.initVersion = 1;
        state.completeRounds();
        return Reply.ok(state.round);
    }

    @Override
    public int getClassId() {
        return StateFactory.INIT;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeFloatArray(value);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        value = in.readFloatArray();
    }
}
