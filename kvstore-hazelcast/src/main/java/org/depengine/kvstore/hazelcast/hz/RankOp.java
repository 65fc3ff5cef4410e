package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;

/**
 * A change in a rank's participation, for every key: its end of data (the rounds go on without it) or
 * its loss (the rounds it has not contributed to can never complete; pulls of them fail with
 * {@code reason}). The answer to a loss says up to which round the key can still complete, and why no
 * later round can ({@link Reply#failedAfter}), so that a worker fails its later calls without making them.
 */
public final class RankOp extends KeyOp {
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    private int rank;
    private int period;
    private String lostReason;

    /** For Hazelcast's factory. */
    public RankOp() {
    }

    private RankOp(int workers, boolean async, int rank, int period, String lostReason) {
        super("", 0, workers, async);
        this.rank = rank;
        this.period = period;
        this.lostReason = lostReason;
    }

    /** Rank {@code rank} has no more data in {@code period}: its rounds complete without it. */
    public static RankOp endOfData(int workers, boolean async, int rank, int period) {
        return new RankOp(workers, async, rank, period, null);
    }

    /** Rank {@code rank} left the cluster: rounds it has not pushed fail, naming {@code reason}. */
    public static RankOp lost(int workers, boolean async, int rank, String reason) {
        return new RankOp(workers, async, rank, 0, reason);
    }

    @Override
    Reply apply(KeyState state) {
        if (lostReason == null) {
            state.apply(state.rounds.endOfData(rank, period));
            return Reply.ok(state.rounds.completed());
        }
        state.rounds.lost(rank, lostReason);
        return state.rounds.failure() != null ? Reply.failedAfter(state.rounds.failedAfter(), state.rounds.failure())
                : Reply.ok(state.rounds.completed());
    }

    @Override
    public int getClassId() {
        return StateFactory.RANK;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeInt(rank);
        out.writeInt(period);
        out.writeString(lostReason);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        rank = in.readInt();
        period = in.readInt();
        lostReason = in.readString();
    }
}
