package org.depengine.kvstore.hazelcast.peer;

import java.util.ArrayList;
import java.util.List;

/**
 * How a key's rounds are summed with {@code updateOn=worker}: the key's floats in chunks, each summed by
 * its reducers. A small key (at most {@link #SMALL_FLOATS}, and at most {@code splitFloats}) is one chunk
 * that every worker sums itself from every worker's push: one hop, {@code (N−1)·L} floats out per worker,
 * which for small keys costs nothing and at two workers is the allreduce's bound. A larger key is cut into
 * {@code N} slices as equal as floats allow, slice {@code j} summed by rank {@code (j + h) mod N} (h from the
 * key's name, so that the remainders spread), each slice cut again into parts of at most {@code splitFloats}:
 * every worker sends each slice it does not sum to its reducer and gets the slice's sum back, {@code 2(N−1)/N·L}
 * floats out per worker, the same on every worker. Every worker computes the same layout from the key's
 * name, length and the job's size. Immutable.
 */
final class KeyLayout {
    /** Keys of at most this many floats (64 KiB) are summed by every worker: their latency, not their bytes, counts. */
    static final int SMALL_FLOATS = 16 * 1024;
    /** The reducer of a chunk every worker sums. */
    static final int EVERY_RANK = -1;

    /** One chunk: {@code count} floats from {@code offset}, summed by {@code reducer} (or {@link #EVERY_RANK}). */
    record Chunk(int index, int offset, int count, int reducer) {
        /** Whether {@code rank} sums this chunk. */
        boolean reducedBy(int rank) {
            return reducer == EVERY_RANK || reducer == rank;
        }
    }

    private final String key;
    private final int length;
    private final List<Chunk> chunks;

    KeyLayout(String key, int length, int workers, int splitFloats) {
        this.key = key;
        this.length = length;
        List<Chunk> out = new ArrayList<>();
        if (workers == 1 || length <= Math.min(SMALL_FLOATS, splitFloats)) {
            out.add(new Chunk(0, 0, length, EVERY_RANK));
        } else {
            int h = Math.floorMod(key.hashCode(), workers);
            int slices = Math.min(workers, length);
            for (int j = 0; j < slices; j++) {
                int from = (int) ((long) length * j / slices);
                int to = (int) ((long) length * (j + 1) / slices);
                for (int off = from; off < to; off += splitFloats) {
                    out.add(new Chunk(out.size(), off, Math.min(splitFloats, to - off), (j + h) % workers));
                }
            }
        }
        this.chunks = List.copyOf(out);
    }

    String key() {
        return key;
    }

    int length() {
        return length;
    }

    List<Chunk> chunks() {
        return chunks;
    }

    /** The chunk starting at {@code offset}. */
    Chunk at(int offset) {
        int lo = 0;
        int hi = chunks.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Chunk c = chunks.get(mid);
            if (c.offset() == offset) {
                return c;
            }
            if (c.offset() < offset) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return null;
    }
}
