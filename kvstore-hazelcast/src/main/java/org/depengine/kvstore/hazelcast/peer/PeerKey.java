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

    /** How the key's rounds are summed in the view installed. */
    KeyLayout layout;
    /** The store's key, once this worker's init ran (a peer's frames may come first). */
    Key key;
    /** The rounds' sums that reached this worker, and the ones applied; started by this worker's init. */
    AppliedRounds applied;
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

    // -------------------------------------------------------------- elastic jobs ({@link Recovery})

    /** This worker's pushes (copies) whose rounds are not applied yet, by round: sent again at a view change. */
    final TreeMap<Long, ByteBuf> open = new TreeMap<>();
    /** This worker's skipped pushes whose rounds are not applied yet. */
    final java.util.TreeSet<Long> skips = new java.util.TreeSet<>();
    /** The sum of the last round applied, kept to forward to a survivor one round behind; null if none. */
    RoundSum kept;
    /** Whether the copy waits for what a view change's recovery sends it (a forward or a state). */
    boolean recovering;
    /** A survivor's state of the key as of a view change's agreed round, for this started copy, behind it. */
    ByteBuf state;
    Frame stateFrame;

    /** Whether this copy is a joiner's: what it is first sent is the job's copy, as of whatever round. */
    final boolean joined;

    PeerKey(KeyLayout layout, boolean joined) {
        this.layout = layout;
        this.joined = joined;
        this.applied = new AppliedRounds(layout.chunks().size());
    }

    /** A part of {@code round}'s sum arrived: progress for the op that waits. */
    void arrived(long round) {
        applied.arrived(round);
        if (waiter != null) {
            waiter.since = System.nanoTime();
        }
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

    /**
     * The key as laid out for a new view: what reducers here held and the sums of rounds not applied are the
     * old view's and are dropped (the rounds they belong to are summed again under the new view).
     */
    void changeView(KeyLayout next) {
        dropRounds();
        layout = next;
        applied = applied.changeView(next.chunks().size());
    }

    private void dropRounds() {
        sums.values().forEach(s -> s.buf.release());
        sums.clear();
        reducing.values().forEach(r -> r.forEachPending((round, rank, kind, slot) -> {
            if (slot != null && slot.owner() != null) {
                slot.owner().release();
            }
        }));
        reducing.clear();
    }

    /** Round {@code round} is applied: this worker's pushes of it and before are done with. */
    void closeOpen(long round) {
        while (!open.isEmpty() && open.firstKey() <= round) {
            give(open.pollFirstEntry().getValue());
        }
    }

    /** The last round this worker pushed or skipped that is not applied yet, or 0. */
    long lastOpen() {
        return Math.max(open.isEmpty() ? 0 : open.lastKey(), skips.isEmpty() ? 0 : skips.last());
    }

    /** Frees what the key holds (at close). */
    void release() {
        dropRounds();
        open.values().forEach(ByteBuf::release);
        open.clear();
        if (kept != null) {
            kept.buf.release();
            kept = null;
        }
        if (state != null) {
            state.release();
            state = null;
        }
        if (init != null) {
            init.release();
            init = null;
        }
        spare.values().forEach(q -> q.forEach(ByteBuf::release));
        spare.clear();
    }

    /**
     * Takes rank 0's init (or, a copy that never had it, a view change's state as of the agreed round) into
     * this worker's copy, once both it and this worker's key are here (under the exchange's lock; the key's
     * init op, which holds its stored value, is the one that waits for it).
     */
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
        float[] st = new float[f.offset() * k.length()];
        b.nioBuffer(k.length() * Float.BYTES, st.length * Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer()
                .get(st);
        b.release();
        boolean transferred = f.type() == Frame.Type.STATE;
        // A survivor's state as of a view change's agreed round: this copy starts as of that round.
        k.restoreFrom(st, f.count(), transferred ? org.depengine.kvstore.spi.Rounds.of(
                org.depengine.kvstore.spi.Rounds.period(f.round()), 0) : f.round());
        if (joined) {
            // A joiner's key began before it joined: its copy goes through the job's rounds from the one it is sent,
            // whatever period its own init was made in.
            if (transferred) {
                applied.recoveredTo(f.round());
            } else {
                applied.start(f.round(), org.depengine.kvstore.spi.Rounds.period(f.round()));
            }
        } else {
            applied.start(k.initRound(), k.initPeriod());
            if (transferred && f.round() > applied.applied()) {
                applied.recoveredTo(f.round());
            }
        }
        recovering = false;
    }
}
