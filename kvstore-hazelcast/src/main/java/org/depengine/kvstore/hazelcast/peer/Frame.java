package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * One message of the workers' data transport ({@code updateOn=worker}): a header of a few fields and a
 * payload of floats in the senders' byte order (every worker's, checked at {@link Type#HELLO}). On the
 * wire: the header's length and the payload's (two ints), the header, the payload.
 *
 * @param type what the frame says
 * @param rank the sending rank ({@link Type#HELLO}, {@link Type#PUSH}, {@link Type#END}, {@link Type#CLOSED}, {@link Type#BYE})
 * @param round a round ({@link Type#PUSH}, {@link Type#SUM}, {@link Type#INIT})
 * @param period a period ({@link Type#END}, {@link Type#CLOSED})
 * @param key the key ({@link Type#PUSH}, {@link Type#SUM}, {@link Type#INIT}); the job's id in {@link Type#HELLO}
 * @param length the key's length in floats ({@link Type#PUSH}, {@link Type#SUM}, {@link Type#INIT}); the
 *     byte order in {@link Type#HELLO} (0 little-endian, 1 big-endian)
 * @param offset where the chunk starts in the key ({@link Type#PUSH}, {@link Type#SUM}); the floats of
 *     state per element in {@link Type#INIT}
 * @param count the chunk's floats, or -1 for a skipped push or a sum of no data; the update count in
 *     {@link Type#INIT}
 * @param payloadBytes the payload's length
 * @param epoch the view of an elastic job the sender was in when it sent the frame (0 in a job that is not
 *     elastic): a frame of a view the receiver has left is dropped, one of a view it has not installed yet waits
 */
record Frame(Type type, int rank, long round, int period, String key, int length, int offset, long count,
             int payloadBytes, int epoch) {
    /** What a frame says. */
    enum Type {
        /** The first frame on a connection: who sends, in which job and byte order. */
        HELLO,
        /** A rank's part of a round of a chunk, for the chunk's reducer. */
        PUSH,
        /** A chunk's sum of a round, from its reducer. */
        SUM,
        /** A rank has no more data in a period (its later pushes of it: none). */
        END,
        /** Every rank ended a period, and every sum of it this sender makes has been sent before this. */
        CLOSED,
        /** Rank 0's initial value of a key (and a resumed key's updater state). */
        INIT,
        /** The sender closed its store normally; it sends nothing more. */
        BYE,
        /** A survivor's state of every key when it froze for a view change, to the new view's leader ({@link Recovery}). */
        REPORT,
        /** The leader's decision for every key of a view change ({@link org.depengine.kvstore.hazelcast.protocol.ElasticRule}). */
        DECISION,
        /** The whole sum of a key's agreed round, for a survivor one round behind (its layout: {@link Type#SUM}'s, one chunk). */
        FORWARD,
        /** A key's state as of the agreed round, for a survivor further behind (its layout: {@link Type#INIT}'s). */
        STATE
    }

    static final int PREFIX_BYTES = 8;

    static Frame hello(int rank, String jobId, boolean bigEndian) {
        return new Frame(Type.HELLO, rank, 0, 0, jobId, bigEndian ? 1 : 0, 0, 0, 0, 0);
    }

    static Frame push(int rank, long round, String key, int length, int offset, int count) {
        return new Frame(Type.PUSH, rank, round, 0, key, length, offset, count, Math.max(0, count) * Float.BYTES, 0);
    }

    static Frame sum(long round, String key, int length, int offset, int count) {
        return new Frame(Type.SUM, 0, round, 0, key, length, offset, count, Math.max(0, count) * Float.BYTES, 0);
    }

    static Frame end(int rank, int period) {
        return new Frame(Type.END, rank, 0, period, "", 0, 0, 0, 0, 0);
    }

    static Frame closed(int rank, int period) {
        return new Frame(Type.CLOSED, rank, 0, period, "", 0, 0, 0, 0, 0);
    }

    static Frame init(String key, int length, int stateFloats, long steps, long round) {
        return new Frame(Type.INIT, 0, round, 0, key, length, stateFloats, steps,
                (int) ((long) length * (1 + stateFloats) * Float.BYTES), 0);
    }

    /** A key's state as of {@code round} for a survivor behind it: the payload as {@link #init}'s. */
    static Frame state(String key, int length, int stateFloats, long steps, long round) {
        return new Frame(Type.STATE, 0, round, 0, key, length, stateFloats, steps,
                (int) ((long) length * (1 + stateFloats) * Float.BYTES), 0);
    }

    /** Round {@code round}'s whole sum of a key ({@code count} -1: the round had no data, and no payload). */
    static Frame forward(long round, String key, int length, boolean hasData) {
        return new Frame(Type.FORWARD, 0, round, 0, key, length, 0, hasData ? length : -1, hasData ? length * Float.BYTES : 0, 0);
    }

    /** A frame of {@link Recovery}'s, with its payload's length. */
    static Frame recovery(Type type, int rank, int payloadBytes) {
        return new Frame(type, rank, 0, 0, "", 0, 0, 0, payloadBytes, 0);
    }

    /** This frame, sent in view {@code epoch}. */
    Frame at(int epoch) {
        return epoch == this.epoch ? this : new Frame(type, rank, round, period, key, length, offset, count, payloadBytes, epoch);
    }

    static Frame bye(int rank) {
        return new Frame(Type.BYE, rank, 0, 0, "", 0, 0, 0, 0, 0);
    }

    /** The prefix and header of this frame, for a payload of {@link #payloadBytes} to follow. */
    ByteBuf encode(ByteBufAllocator alloc) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int header = 1 + 4 + 8 + 4 + 2 + k.length + 4 + 4 + 8 + 4;
        ByteBuf b = alloc.buffer(PREFIX_BYTES + header);
        b.writeInt(header).writeInt(payloadBytes);
        b.writeByte(type.ordinal()).writeInt(rank).writeLong(round).writeInt(period);
        b.writeShort(k.length).writeBytes(k);
        b.writeInt(length).writeInt(offset).writeLong(count).writeInt(epoch);
        return b;
    }

    /** Reads a header of {@code payloadBytes} from {@code b}. */
    static Frame decode(ByteBuf b, int payloadBytes) {
        Type type = Type.values()[b.readByte()];
        int rank = b.readInt();
        long round = b.readLong();
        int period = b.readInt();
        byte[] k = new byte[b.readUnsignedShort()];
        b.readBytes(k);
        return new Frame(type, rank, round, period, new String(k, StandardCharsets.UTF_8), b.readInt(), b.readInt(),
                b.readLong(), payloadBytes, b.readInt());
    }
}
