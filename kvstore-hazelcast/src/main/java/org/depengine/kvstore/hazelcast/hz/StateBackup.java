package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;

/**
 * The backup of a push that completed a round: the state the owner ended with (the updated value, the
 * updater's state, the rounds still pending), which the backup stores as it is instead of summing and
 * updating again.
 */
public final class StateBackup implements EntryProcessor<String, KeyState, Reply>, IdentifiedDataSerializable {
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    /** Written by {@link #writeData}, not by Java serialization. */
    private transient KeyState state;

    /** For Hazelcast's factory. */
    public StateBackup() {
    }

    /** The backup of {@code state}, a copy that no later op on the owner changes. */
    StateBackup(KeyState state) {
        this.state = state;
    }

    @Override
    public Reply process(Map.Entry<String, KeyState> entry) {
        entry.setValue(state);
        return null;
    }

    @Override
    public EntryProcessor<String, KeyState, Reply> getBackupProcessor() {
        return null;
    }

    @Override
    public int getFactoryId() {
        return StateFactory.ID;
    }

    @Override
    public int getClassId() {
        return StateFactory.STATE_BACKUP;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        state.writeData(out);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        state = new KeyState();
        state.readData(in);
    }
}
