package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.BitSet;
import java.util.Map;

/**
 * An operation on one key's (or chunk's) {@link KeyState}, run by Hazelcast on the member that owns
 * the key's partition and then, for ops that change the state, the same op on the backup (so both
 * copies stay equal without shipping the arrays twice: every op is deterministic). A push that
 * completes a round is the exception: its backup gets the state the owner ended with
 * ({@link StateBackup}), so the sum and the update run once.
 */
public abstract class KeyOp implements EntryProcessor<String, KeyState, Reply>, IdentifiedDataSerializable {
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    /** The user's key, for the updater and error messages. */
    String key;
    /** Where this chunk starts in the key's array. */
    int offset;
    int workers;
    boolean async;

    KeyOp() {
    }

    KeyOp(String key, int offset, int workers, boolean async) {
        this.key = key;
        this.offset = offset;
        this.workers = workers;
        this.async = async;
    }

    @Override
    public final Reply process(Map.Entry<String, KeyState> entry) {
        KeyState state = entry.getValue();
        boolean created = state == null;
        if (created) {
            state = new KeyState(workers, async);
            state.key = entry.getKey();
        }
        if (changes() && !key.isEmpty()) {
            state.key = key;
            state.offset = offset;
        }
        long round = state.rounds.completed();
        Reply reply = apply(state);
        if (changes() && (created || reply.status() != Reply.Status.ERROR)) {
            if (!state.storedInPlace || !unseen(state, round)) {
                // A copy does not know who waits: it tells every rank, as do the rare ops that are not pushes.
                state.told = state.storedInPlace && tellsWaitingOnly() ? state.waiting : allRanks(state.rounds.workers());
                state.waiting = new BitSet();
                entry.setValue(state); // stores the state and tells the listeners (pulls waiting on this key)
            }
            state.storedInPlace = true;
        } else if (!created && reply.status() == Reply.Status.NOT_READY) {
            // The op that makes this read ready stores the state, so the reader hears of it.
            state.waiting.set(readerRank());
        }
        return reply.inView(state.viewEpoch);
    }

    /**
     * Whether this op's change of {@code state} (whose round was {@code roundBefore}) is one no read waits
     * for, so that the listeners need not hear of it: the state object is the map's own (it is changed in
     * place), so storing it again would only send every worker an event.
     */
    boolean unseen(KeyState state, long roundBefore) {
        return false;
    }

    /**
     * Whether a store this op makes tells only the ranks that wait ({@link KeyState#waiting}); otherwise it
     * tells every rank.
     */
    boolean tellsWaitingOnly() {
        return false;
    }

    /** A read op's caller, marked waiting when it answers NOT_READY. */
    int readerRank() {
        throw new IllegalStateException(getClass().getSimpleName() + " is not a read");
    }

    private static BitSet allRanks(int workers) {
        BitSet all = new BitSet(workers);
        all.set(0, workers);
        return all;
    }

    /** Applies the op to {@code state} (new and empty if the key had none). */
    abstract Reply apply(KeyState state);

    /** Whether the op may change the state (read-only ops skip the store, the backup and the events). */
    boolean changes() {
        return true;
    }

    @Override
    public EntryProcessor<String, KeyState, Reply> getBackupProcessor() {
        return changes() ? this : null;
    }

    @Override
    public final int getFactoryId() {
        return StateFactory.ID;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(key);
        out.writeInt(offset);
        out.writeInt(workers);
        out.writeBoolean(async);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        key = in.readString();
        offset = in.readInt();
        workers = in.readInt();
        async = in.readBoolean();
    }
}
