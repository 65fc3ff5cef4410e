package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.depengine.api.CallbackOnComplete;
import org.depengine.kvstore.hazelcast.protocol.AppliedRounds;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.spi.Key;

/**
 * One key on one worker with {@code updateOn=worker}: its layout, the rounds of the chunks this worker
 * sums, the sums of rounds that reached it, and the op (at most one: the key's ops that write its stored
 * value are ordered) that waits for them. Guarded by the {@link PeerExchange}'s lock, except the values a
 * round's apply reads and writes, which only the op holding the key's stored variable touches.
 */
final class PeerKey {
    /** A rank's part of a chunk's round: its floats, and the buffer to release once summed (null: not ours). */
    record Slot(FloatBuffer floats, ByteBuf owner) {
    }

    /** A round's sum on this worker: the whole key's floats, filled chunk by chunk. */
    static final class RoundSum {
        final ByteBuf buf;
        /** Whether the round had any data (a round of skipped pushes only has none, and updates nothing). */
        boolean hasData;

        RoundSum(ByteBuf buf) {
            this.buf = buf;
            buf.writerIndex(buf.capacity());
        }

        /** The floats from {@code offset}, {@code count} of them (a view; the buffer stays this sum's). */
        FloatBuffer floats(int offset, int count) {
            return buf.nioBuffer(offset * Float.BYTES, count * Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer();
        }
    }

    /** The op that waits for this key's rounds: until its copy reaches a round (and a closed period). */
    static final class Waiter {
        final long round;
        final int closedPeriod;
        final CallbackOnComplete done;
        final String what;
        /** Writes of this op's pushes still to go to the socket: the op holds its pushed buffer until then. */
        int writes;
        /** When this op last saw progress, for its timeout. */
        long since = System.nanoTime();
        final long started = System.nanoTime();

        Waiter(long round, int closedPeriod, CallbackOnComplete done, String what) {
            this.round = round;
            this.closedPeriod = closedPeriod;
            this.done = done;
            this.what = what;
        }
    }

    final KeyLayout layout;
    /** The store's key, once this worker's init ran (a peer's frames may come first). */
    Key key;
    /** The rounds' sums that reached this worker, and the ones applied; started by this worker's init. */
    final AppliedRounds applied;
    final Map<Integer, RoundState<Slot>> reducing = new HashMap<>();
    final TreeMap<Long, RoundSum> sums = new TreeMap<>();
    /** Buffers kept for the next rounds, by size: a few per size (a round or two of a key are open at once). */
    private static final int SPARES = 4;
    private final Map<Integer, java.util.ArrayDeque<ByteBuf>> spare = new HashMap<>();
    /** When this worker pushed each round not applied yet (for the rounds' latency). */
    final Map<Long, Long> pushedAt = new HashMap<>();
    /** Rank 0's init (value, then state), arrived before this worker's init op took it. */
    ByteBuf init;
    Frame initFrame;
    Waiter waiter;
    /** Whether a thread is applying rounds to the key now (one at a time, in order). */
    boolean applying;
    /** Why the key's rounds cannot go on (a rank whose part it summed closed, a shape mismatch), or null. */
    String broken;

    PeerKey(KeyLayout layout) {
        this.layout = layout;
        this.applied = new AppliedRounds(layout.chunks().size());
    }

    /** The sum of {@code round}, made on first use. */
    RoundSum sum(long round) {
        return sums.computeIfAbsent(round, r -> new RoundSum(take(layout.length() * Float.BYTES)));
    }

    /**
     * A direct buffer of {@code bytes} (its writer index 0) for a round's sum or a rank's part: one this key
     * used before when there is one. Allocating (and zeroing) megabytes at every round cost more than the
     * sums themselves.
     */
    ByteBuf take(int bytes) {
        java.util.ArrayDeque<ByteBuf> free = spare.get(bytes);
        ByteBuf b = free == null ? null : free.poll();
        return b != null ? b.clear() : PeerTransport.alloc().directBuffer(bytes, bytes);
    }

    /**
     * Gives back a buffer {@link #take} made, done with here: kept for the next round if nothing else holds it
     * (a sum still being written to a peer does), else released.
     */
    void give(ByteBuf b) {
        if (b.refCnt() == 1) {
            java.util.ArrayDeque<ByteBuf> free = spare.computeIfAbsent(b.capacity(), c -> new java.util.ArrayDeque<>());
            if (free.size() < SPARES) {
                free.add(b);
                return;
            }
        }
        b.release();
    }

    /** Frees what the key holds (at close). */
    void release() {
        sums.values().forEach(s -> s.buf.release());
        sums.clear();
        reducing.values().forEach(r -> r.forEachPending((round, rank, kind, slot) -> {
            if (slot != null && slot.owner() != null) {
                slot.owner().release();
            }
        }));
        reducing.clear();
        if (init != null) {
            init.release();
            init = null;
        }
        spare.values().forEach(q -> q.forEach(ByteBuf::release));
        spare.clear();
    }

    /** Takes rank 0's init into this worker's copy, once both the init and this worker's key are here (under the exchange's lock). */
    void takeInit() {
        if (key == null || init == null || applied.started()) {
            return;
        }
        Key k = key;
        Frame f = initFrame;
        ByteBuf b = init;
        init = null;
        if (f.length() != k.length()) {
            broken = "rank 0 initialised key '" + k.name() + "' with " + f.length() + " floats, this rank with "
                    + k.length();
            b.release();
            return;
        }
        ByteBuffer value = b.nioBuffer(0, k.length() * Float.BYTES);
        k.storedBytes().put(value);
        float[] state = new float[f.offset() * k.length()];
        b.nioBuffer(k.length() * Float.BYTES, state.length * Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer()
                .get(state);
        b.release();
        k.restoreFrom(state, f.count(), f.round());
        applied.start(k.initRound(), k.initPeriod());
    }
}
