package org.depengine.kvstore.hazelcast.state;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;

/**
 * A change in a rank's participation, for every key: its end of data (the rounds go on without it) or
 * its loss (the rounds it has not contributed to can never complete; pulls of them fail with
 * {@code reason}).
 */
public final class RankOp extends KeyOp {
    private int rank;
    private String lostReason;

    /** For Hazelcast's factory. */
    public RankOp() {
    }

    private RankOp(int workers, boolean async, int rank, String lostReason) {
        super("", 0, workers, async);
        this.rank = rank;
        this.lostReason = lostReason;
    }

    /** Rank {@code rank} has no more data: the next rounds complete without it. */
    public static RankOp endOfData(int workers, boolean async, int rank) {
        return new RankOp(workers, async, rank, null);
    }

    /** Rank {@code rank} left the cluster: rounds it has not pushed fail, naming {@code reason}. */
    public static RankOp lost(int workers, boolean async, int rank, String reason) {
        return new RankOp(workers, async, rank, reason);
    }

    @Override
    Reply apply(KeyState state) {
        if (lostReason == null) {
            state.ended[rank] = true;
        } else if (!state.ended[rank] && !state.async && state.failure == null) {
            float[][] next = state.pending.get(state.round + 1);
            state.failedAfter = state.round + (next != null && next[rank] != null ? 1 : 0);
            state.failure = lostReason;
        }
        state.completeRounds();
        return Reply.ok(state.round);
    }

    @Override
    public int getClassId() {
        return StateFactory.RANK;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeInt(rank);
        out.writeString(lostReason);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        rank = in.readInt();
        lostReason = in.readString();
    }
}
