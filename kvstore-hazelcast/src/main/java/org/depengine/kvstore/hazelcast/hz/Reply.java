package org.depengine.kvstore.hazelcast.hz;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;

/** What a key's owner answers: done (with the value, for reads), not ready yet, or an error to report. */
public final class Reply implements IdentifiedDataSerializable {
    /** The outcome of a call. */
    public enum Status { OK, NOT_READY, ERROR }

    private Status status;
    private String message;
    private float[] value;
    private long round;
    /** A read with state: the chunk's updater state and update count. */
    private float[] state;
    private long steps;
    /** The latest elastic view the chunk was told of when it answered ({@link KeyState#viewEpoch}). */
    private int epoch;

    /** For Hazelcast's factory. */
    public Reply() {
    }

    private Reply(Status status, String message, float[] value, long round) {
        this.status = status;
        this.message = message;
        this.value = value;
        this.round = round;
    }

    static Reply ok(long round) {
        return new Reply(Status.OK, null, null, round);
    }

    static Reply value(float[] value, long round) {
        return new Reply(Status.OK, null, value, round);
    }

    static Reply snapshot(float[] value, float[] state, long steps, long round) {
        Reply r = new Reply(Status.OK, null, value, round);
        r.state = state;
        r.steps = steps;
        return r;
    }

    static Reply notReady(String why) {
        return new Reply(Status.NOT_READY, why, null, 0);
    }

    static Reply error(String message) {
        return new Reply(Status.ERROR, message, null, 0);
    }

    /** The answer to a lost rank's report: rounds after {@code lastRound} cannot complete, because {@code why}. */
    static Reply failedAfter(long lastRound, String why) {
        return new Reply(Status.OK, why, null, lastRound);
    }

    /** Stamps the chunk's view ({@link #epoch()}); returns this reply. */
    Reply inView(int viewEpoch) {
        this.epoch = viewEpoch;
        return this;
    }

    /**
     * The latest view of an elastic job the chunk had been told of when it answered (0: none): a value read
     * from it may have been summed over that view, so a worker that has not moved to it yet holds the value
     * until it has.
     */
    public int epoch() {
        return epoch;
    }

    /** OK, NOT_READY or ERROR. */
    public Status status() {
        return status;
    }

    /**
     * The error, or (not ready) what is still missing, or (the answer to a lost rank's report) why the
     * rounds after {@link #round()} cannot complete; null otherwise.
     */
    public String message() {
        return message;
    }

    /** A read's value (a copy owned by the caller); null otherwise. */
    public float[] value() {
        return value;
    }

    /** A read with state: the chunk's updater state (a copy owned by the caller); null otherwise. */
    public float[] state() {
        return state;
    }

    /** A read with state: the chunk's update count. */
    public long steps() {
        return steps;
    }

    /**
     * The key's completed rounds (sync) or applied pushes (async) when the reply was made; in the answer
     * to a lost rank's report with a message, the last round that can still complete; in the answer to a
     * dropped rank's report ({@link RankOp#dropped}), the last round that rank gave data to.
     */
    public long round() {
        return round;
    }

    @Override
    public int getFactoryId() {
        return StateFactory.ID;
    }

    @Override
    public int getClassId() {
        return StateFactory.REPLY;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeInt(status.ordinal());
        out.writeString(message);
        out.writeFloatArray(value);
        out.writeLong(round);
        out.writeFloatArray(state);
        out.writeLong(steps);
        out.writeInt(epoch);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        status = Status.values()[in.readInt()];
        message = in.readString();
        value = in.readFloatArray();
        round = in.readLong();
        state = in.readFloatArray();
        steps = in.readLong();
        epoch = in.readInt();
    }
}
