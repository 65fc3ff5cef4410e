package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;

/**
 * A change in a rank's participation, for every key: its end of data (the rounds go on without it), its
 * loss (the rounds it has not contributed to can never complete; pulls of them fail with {@code reason}),
 * or, in an elastic job, its drop from a view (the rounds it has not contributed to complete without it).
 * The answer to a loss says up to which round the key can still complete, and why no later round can
 * ({@link Reply#failedAfter}), so that a worker fails its later calls without making them; the answer to a
 * drop says the last round the rank gave data to, from which the workers tell a torn round.
 */
public final class RankOp extends KeyOp {
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    private int rank;
    private int period;
    private String lostReason;
    /** A drop: the epoch of the view without the rank (from 1); 0 for the other changes. */
    private int epoch;

    /** For Hazelcast's factory. */
    public RankOp() {
    }

    private RankOp(int workers, boolean async, int rank, int period, String lostReason, int epoch) {
        super("", 0, workers, async);
        this.rank = rank;
        this.period = period;
        this.lostReason = lostReason;
        this.epoch = epoch;
    }

    /** Rank {@code rank} has no more data in {@code period}: its rounds complete without it. */
    public static RankOp endOfData(int workers, boolean async, int rank, int period) {
        return new RankOp(workers, async, rank, period, null, 0);
    }

    /** Rank {@code rank} left the cluster: rounds it has not pushed fail, naming {@code reason}. */
    public static RankOp lost(int workers, boolean async, int rank, String reason) {
        return new RankOp(workers, async, rank, 0, reason, 0);
    }

    /**
     * Rank {@code rank} (a worker's rank in the job's first view, its slot in every round) is not in view
     * {@code epoch} of an elastic job: it ends every period, so the rounds it has not filled complete with the
     * others, and its data in rounds it filled stays ({@code RoundState.dropped}). The chunk remembers the
     * view ({@link Reply#epoch}). The answer's {@link Reply#round()} is the last round the rank gave data to,
     * the same in every answer to it (nothing of that rank is taken in after).
     *
     * @param epoch the view without the rank, from 1
     */
    public static RankOp dropped(int workers, int rank, int epoch) {
        if (epoch < 1) {
            throw new IllegalArgumentException("a view that drops a worker has an epoch from 1: " + epoch);
        }
        return new RankOp(workers, false, rank, 0, null, epoch);
    }

    @Override
    Reply apply(KeyState state) {
        if (epoch > 0) {
            state.viewEpoch = Math.max(state.viewEpoch, epoch);
            state.apply(state.rounds.dropped(rank));
            return Reply.ok(state.rounds.lastData(rank));
        }
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
        out.writeInt(epoch);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        rank = in.readInt();
        period = in.readInt();
        lostReason = in.readString();
        epoch = in.readInt();
    }
}
