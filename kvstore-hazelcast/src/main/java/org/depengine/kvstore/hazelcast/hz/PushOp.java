package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.spi.Rounds;

/**
 * One rank's contribution to a key's chunk. {@code dist_sync}: it fills the rank's slot of round
 * {@code round} (a repeat overwrites the same slot with the same data; a round already completed
 * ignores it), and the round completes when its last slot arrives. {@code dist_async}: applied at
 * once (after the init, if it is still missing), once per rank and round: a repeat changes nothing.
 */
public final class PushOp extends KeyOp {
    /** EntryProcessor is Serializable, but Hazelcast writes these as IdentifiedDataSerializable. */
    private static final long serialVersionUID = 1L;

    private int rank;
    private long round;
    private float[] value;
    private Updater updater;
    /**
     * On the owner, once this push completed a round: a copy of the state it left, which the backup stores
     * ({@link #getBackupProcessor()}) instead of replaying the push's sum and update.
     */
    private transient KeyState completed;

    /** For Hazelcast's factory. */
    public PushOp() {
    }

    /** Rank {@code rank}'s push of round {@code round} ({@link Rounds}) of the chunk at {@code offset}; a null updater assigns. */
    public PushOp(String key, int offset, int workers, boolean async, int rank, long round, float[] value,
                  Updater updater) {
        super(key, offset, workers, async);
        this.rank = rank;
        this.round = round;
        this.value = value;
        this.updater = updater;
    }

    /**
     * Rank {@code rank}'s round {@code round} of the chunk, marked as skipped (its producer failed on the
     * worker): it counts as the rank's contribution and adds nothing, so the round still completes.
     */
    public static PushOp skipped(String key, int offset, int workers, int rank, long round) {
        return new PushOp(key, offset, workers, false, rank, round, null, null);
    }

    @Override
    Reply apply(KeyState state) {
        long before = state.rounds.completed();
        Reply reply = take(state);
        long after = state.rounds.completed();
        completed = after > before ? state.copy() : null;
        if (!async && value != null && reply.status() == Reply.Status.OK && after > before && state.error == null) {
            // This push completed the round: its reply carries the value, so this rank's pull of the round
            // needs no call of its own. The backup's copy serves: the owner changes its own value in place
            // next round, and neither the backup (serialized before the reply goes) nor the caller changes it.
            return Reply.value(completed.value.value(), after);
        }
        return reply;
    }

    private Reply take(KeyState state) {
        RoundState<float[]> rounds = state.rounds;
        if (value == null) {
            state.apply(rounds.skip(rank, round));
            return Reply.ok(rounds.completed());
        }
        if (rounds.isReady() && value.length != state.length) {
            return Reply.error("shape mismatch on key '" + key + "': it holds " + state.length + " floats, rank " + rank
                    + " pushed " + value.length);
        }
        if (!async && rounds.hasEnded(rank, Rounds.period(round))) {
            return Reply.error("rank " + rank + " pushed key '" + key + "' after " + (rounds.endedPeriod(rank)
                    == Integer.MAX_VALUE ? "it left the job (it closed its store, or a view of the elastic job dropped it)"
                    : "signalling its end of data"));
        }
        if (rounds.failure() != null && round > rounds.failedAfter()) {
            return Reply.error(rounds.failure());
        }
        String mismatch = state.value == null ? null : state.value.stateMismatch(updater, key);
        if (mismatch != null) {
            return Reply.error(mismatch);
        }
        state.updater = updater;
        state.apply(rounds.offer(rank, round, value));
        if (!async && round > rounds.completed() && state.eventsCarryValue()) {
            // Its pull follows: the push that completes the round tells this rank, with the value in the event,
            // so that pull needs no read of its own (a pull that comes anyway finds the round, or waits as marked).
            state.waiting.set(rank);
        }
        return Reply.ok(rounds.completed());
    }

    /**
     * A push that completes no round changes nothing a read can see (the pulls of its round wait for the
     * round, the reads of a period's start for an end of data or a round); one that completes a round is
     * seen only by the ranks that wait for it ({@link KeyState#waiting}). So a completed round is stored
     * (and its entry event sent) only when a rank waits for it, and only the waiting ranks are told: the
     * pushing rank's own pull takes the value from its push's reply.
     */
    @Override
    boolean unseen(KeyState state, long roundBefore) {
        return state.rounds.completed() == roundBefore || state.waiting.isEmpty();
    }

    @Override
    boolean tellsWaitingOnly() {
        return true;
    }

    /**
     * The push itself, replayed on the backup (it fills the same slot there), unless it completed a round
     * on the owner: then the state the owner ended with. (Hazelcast asks the op on the owner after it ran;
     * asked before, it gets the replay, which ends in the same state.)
     */
    @Override
    public EntryProcessor<String, KeyState, Reply> getBackupProcessor() {
        KeyState c = completed;
        return c != null ? new StateBackup(c) : this;
    }

    @Override
    public int getClassId() {
        return StateFactory.PUSH;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeInt(rank);
        out.writeLong(round);
        out.writeFloatArray(value);
        UpdaterWire.write(out, updater);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        rank = in.readInt();
        round = in.readLong();
        value = in.readFloatArray();
        updater = RefusedUpdaters.read(in, "a push of key '" + key + "' by rank " + rank);
    }
}
