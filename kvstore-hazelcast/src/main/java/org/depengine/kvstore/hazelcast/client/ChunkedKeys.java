package org.depengine.kvstore.hazelcast.client;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys a worker has declared and the map entries they are kept in: a key longer than
 * {@code splitFloats} is split into chunks of at most that many floats, each an entry of its own (so on
 * the member owning that entry's partition). Thread-safe.
 */
final class ChunkedKeys {
    private static final char CHUNK = '#';

    /** Called with each chunk of a key: its map key, offset and length. */
    @FunctionalInterface
    interface ChunkAction {
        void accept(String chunkKey, int offset, int length);
    }

    private final int splitFloats;
    private final Map<String, Integer> lengths = new ConcurrentHashMap<>();

    ChunkedKeys(int splitFloats) {
        this.splitFloats = splitFloats;
    }

    /** The floats of a chunk (all but a split key's last chunk have this many). */
    int splitFloats() {
        return splitFloats;
    }

    /** Declares {@code key} with {@code length} floats; returns the length it was declared with before, or null. */
    Integer declare(String key, int length) {
        return lengths.putIfAbsent(key, length);
    }

    /**
     * The declared length of {@code key}, checked against {@code length} unless it is negative.
     *
     * @throws IllegalArgumentException if the key is not declared, or holds another length
     */
    int require(String key, int length, String what, int rank) {
        Integer known = lengths.get(key);
        if (known == null) {
            throw new IllegalArgumentException(what + " of unknown key '" + key + "' (rank " + rank + "): init it first");
        }
        if (length >= 0 && known != length) {
            throw new IllegalArgumentException(what + " of key '" + key + "' with " + length + " floats: it holds " + known);
        }
        return known;
    }

    /** The number of chunks of a key of {@code length} floats (a barrier's 0 floats: 1). */
    int count(int length) {
        return Math.max(1, (length + splitFloats - 1) / splitFloats);
    }

    /**
     * Calls {@code action} with the map key, offset and length of each chunk of {@code key}. The map key
     * of a key kept whole is the key with {@code \} and {@code #} escaped by a {@code \}; a chunk's is
     * that, {@code #} and the chunk's number. So no user key can name another key's chunk ({@code w#1} is
     * not chunk 1 of {@code w}).
     */
    void forEachChunk(String key, int length, ChunkAction action) {
        String escaped = key.replace("\\", "\\\\").replace("#", "\\#");
        if (length <= splitFloats) {
            action.accept(escaped, 0, length);
            return;
        }
        for (int c = 0, off = 0; off < length; c++, off += splitFloats) {
            action.accept(escaped + CHUNK + c, off, Math.min(splitFloats, length - off));
        }
    }

    /** Every declared key with its length: a snapshot. */
    Map<String, Integer> declared() {
        return Map.copyOf(lengths);
    }

    /** Every chunk's map key of every declared key. */
    Set<String> allChunks() {
        Set<String> keys = new HashSet<>();
        lengths.forEach((key, len) -> forEachChunk(key, len, (chunkKey, off, n) -> keys.add(chunkKey)));
        return keys;
    }
}
