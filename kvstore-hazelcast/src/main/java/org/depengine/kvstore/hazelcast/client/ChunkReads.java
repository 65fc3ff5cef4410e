package org.depengine.kvstore.hazelcast.client;

import java.nio.FloatBuffer;
import org.depengine.kvstore.hazelcast.hz.Reply;

/**
 * The owners' answers to one read of a key, chunk by chunk: each reply's array as it came (a copy owned by
 * this read), copied once into its place by {@link #into} or {@link #joined}. Filled from several callbacks,
 * each writing its own chunk's slot; read once every chunk has answered (after the futures' completion).
 */
final class ChunkReads {
    private final float[][] values;
    private final long[] rounds;
    private final int[] epochs;
    private final int length;
    private final int splitFloats;

    ChunkReads(int chunks, int length, int splitFloats) {
        this.values = new float[chunks][];
        this.rounds = new long[chunks];
        this.epochs = new int[chunks];
        this.length = length;
        this.splitFloats = splitFloats;
    }

    /** The answer of the chunk at {@code offset}. */
    void put(int offset, Reply reply) {
        values[offset / splitFloats] = reply.value();
        rounds[offset / splitFloats] = reply.round();
        epochs[offset / splitFloats] = reply.epoch();
    }

    /** The latest elastic view a chunk had been told of when it answered ({@link Reply#epoch()}). */
    int epoch() {
        int e = 0;
        for (int x : epochs) {
            e = Math.max(e, x);
        }
        return e;
    }

    /** The newest round a chunk answered at ({@code otherwise} for none). */
    long newestRound(long otherwise) {
        long newest = Long.MIN_VALUE;
        for (long r : rounds) {
            newest = Math.max(newest, r);
        }
        return rounds.length == 0 ? otherwise : newest;
    }

    /** Whether every chunk answered at {@code round}. */
    boolean allAt(long round) {
        for (long r : rounds) {
            if (r != round) {
                return false;
            }
        }
        return true;
    }

    /** Writes the chunks into {@code target} (absolute indices from 0). */
    void into(FloatBuffer target) {
        for (int c = 0; c < values.length; c++) {
            target.put(c * splitFloats, values[c]);
        }
    }

    /** The chunks as one array: a key kept whole is its reply array itself, a split key a copy of its chunks. */
    float[] joined() {
        if (values.length == 1) {
            return values[0];
        }
        float[] out = new float[length];
        for (int c = 0; c < values.length; c++) {
            System.arraycopy(values[c], 0, out, c * splitFloats, values[c].length);
        }
        return out;
    }
}
