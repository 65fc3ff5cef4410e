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
 */
record Frame(Type type, int rank, long round, int period, String key, int length, int offset, long count,
             int payloadBytes) {
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
        BYE
    }

    static final int PREFIX_BYTES = 8;

    static Frame hello(int rank, String jobId, boolean bigEndian) {
        return new Frame(Type.HELLO, rank, 0, 0, jobId, bigEndian ? 1 : 0, 0, 0, 0);
    }

    static Frame push(int rank, long round, String key, int length, int offset, int count) {
        return new Frame(Type.PUSH, rank, round, 0, key, length, offset, count, Math.max(0, count) * Float.BYTES);
    }

    static Frame sum(long round, String key, int length, int offset, int count) {
        return new Frame(Type.SUM, 0, round, 0, key, length, offset, count, Math.max(0, count) * Float.BYTES);
    }

    static Frame end(int rank, int period) {
        return new Frame(Type.END, rank, 0, period, "", 0, 0, 0, 0);
    }

    static Frame closed(int rank, int period) {
        return new Frame(Type.CLOSED, rank, 0, period, "", 0, 0, 0, 0);
    }

    static Frame init(String key, int length, int stateFloats, long steps, long round) {
        return new Frame(Type.INIT, 0, round, 0, key, length, stateFloats, steps,
                (int) ((long) length * (1 + stateFloats) * Float.BYTES));
    }

    static Frame bye(int rank) {
        return new Frame(Type.BYE, rank, 0, 0, "", 0, 0, 0, 0);
    }

    /** The prefix and header of this frame, for a payload of {@link #payloadBytes} to follow. */
    ByteBuf encode(ByteBufAllocator alloc) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int header = 1 + 4 + 8 + 4 + 2 + k.length + 4 + 4 + 8;
        ByteBuf b = alloc.buffer(PREFIX_BYTES + header);
        b.writeInt(header).writeInt(payloadBytes);
        b.writeByte(type.ordinal()).writeInt(rank).writeLong(round).writeInt(period);
        b.writeShort(k.length).writeBytes(k);
        b.writeInt(length).writeInt(offset).writeLong(count);
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
                b.readLong(), payloadBytes);
    }
}
