package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import org.depengine.kvstore.hazelcast.protocol.Answer;

/**
 * A pull's read: the chunk's value once round {@code round} has completed (round 0: once the init has
 * landed), NOT_READY before that, or the error that keeps the round from ever completing.
 */
public final class ReadOp extends KeyOp {
    // Not ReadOnly: a read that answers NOT_READY marks its rank in the map's own state object (KeyState.waiting),
    // which the same in-place object the pushes change must carry; it stores nothing and has no backup.
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    private long round;
    /** The reading worker's rank: told of the change that makes a NOT_READY answer ready. */
    private int rank;
    /** A checkpoint's read: the updater state and update count too. */
    private boolean withState;

    /** For Hazelcast's factory. */
    public ReadOp() {
    }

    /** Rank {@code rank}'s read of the chunk at {@code offset} of {@code key} as of round {@code round}. */
    public ReadOp(String key, int offset, int workers, boolean async, int rank, long round) {
        super(key, offset, workers, async);
        this.rank = rank;
        this.round = round;
    }

    /** Rank {@code rank}'s checkpoint read of the chunk: its value, updater state and update count as of {@code round}. */
    public static ReadOp withState(String key, int offset, int workers, boolean async, int rank, long round) {
        ReadOp op = new ReadOp(key, offset, workers, async, rank, round);
        op.withState = true;
        return op;
    }

    @Override
    Reply apply(KeyState state) {
        if (state.error != null) {
            return Reply.error(state.error);
        }
        Answer a = state.rounds.read(round, key);
        return switch (a.status()) {
            case READY -> withState ? Reply.snapshot(state.value.value().clone(), state.value.state().clone(),
                    state.value.steps(), state.rounds.completed())
                    : Reply.value(state.value.value().clone(), state.rounds.completed());
            case FAILED -> Reply.error(a.why());
            case NOT_READY -> Reply.notReady(a.why());
        };
    }

    @Override
    boolean changes() {
        return false;
    }

    /**
     * Whether an entry event's copy of the state may answer this read ({@link KeyState#answer}): a
     * {@code dist_sync} read, which any state at or past its round answers as the owner would; a
     * {@code dist_async} read wants the latest value, which only the owner has.
     */
    public boolean answerableFromEvents() {
        return !async;
    }

    @Override
    int readerRank() {
        return rank;
    }

    @Override
    public int getClassId() {
        return StateFactory.READ;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeLong(round);
        out.writeInt(rank);
        out.writeBoolean(withState);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        round = in.readLong();
        rank = in.readInt();
        withState = in.readBoolean();
    }
}
