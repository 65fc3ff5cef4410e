package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.query.Predicate;
import java.io.IOException;
import java.util.Map;

/**
 * The entry events one worker's listener gets: those of the stores that tell its rank
 * ({@link KeyState#told}), of the chunks whose events carry the state or of those whose events do not
 * ({@link KeyState#VALUE_EVENT_FLOATS}), as the listener was registered with or without values. Run by
 * Hazelcast on the key's owner, so an event no rank of this worker waits for is never sent to it.
 */
public final class ToldRanks implements Predicate<String, KeyState>, IdentifiedDataSerializable {
    private static final long serialVersionUID = 1L;

    private int rank;
    private boolean valueCarrying;

    /** For Hazelcast's factory. */
    public ToldRanks() {
    }

    private ToldRanks(int rank, boolean valueCarrying) {
        this.rank = rank;
        this.valueCarrying = valueCarrying;
    }

    /** The events for {@code rank} of the chunks whose events carry the state: register with values. */
    public static ToldRanks withValue(int rank) {
        return new ToldRanks(rank, true);
    }

    /** The events for {@code rank} of the chunks whose events carry nothing: register without values. */
    public static ToldRanks withoutValue(int rank) {
        return new ToldRanks(rank, false);
    }

    @Override
    public boolean apply(Map.Entry<String, KeyState> entry) {
        KeyState s = entry.getValue();
        return s != null && s.told.get(rank) && s.eventsCarryValue() == valueCarrying;
    }

    @Override
    public int getFactoryId() {
        return StateFactory.ID;
    }

    @Override
    public int getClassId() {
        return StateFactory.TOLD_RANKS;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeInt(rank);
        out.writeBoolean(valueCarrying);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        rank = in.readInt();
        valueCarrying = in.readBoolean();
    }
}
