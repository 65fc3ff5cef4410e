package org.depengine.kvstore.hazelcast.peer;

import io.netty.buffer.ByteBuf;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.hazelcast.protocol.Sums;

/**
 * The reducer side of a {@link PeerExchange}: the rounds of the chunks this worker sums ({@link RoundState}
 * each), summed in rank order as they complete, their sums sent to every other worker and taken here; and
 * the ends of periods, from which it sends CLOSED once every rank has ended a period (after every sum of it).
 * Called under the exchange's lock, which orders its frames to each peer.
 */
final class Reducer {
    private final PeerExchange x;
    private final int rank;
    private final int workers;
    private final int[] ended;
    private int sentClosed = -1;

    Reducer(PeerExchange x, int rank, int workers) {
        this.x = x;
        this.rank = rank;
        this.workers = workers;
        this.ended = new int[workers];
        Arrays.fill(ended, -1);
    }

    /** Rank {@code from}'s part of {@code round} of chunk {@code c}, which this worker sums. */
    void offer(PeerKey pk, KeyLayout.Chunk c, int from, long round, PeerKey.Slot slot, boolean skip) {
        RoundState<PeerKey.Slot> rs = pk.reducing.computeIfAbsent(c.index(), i -> reducerState());
        List<RoundState.Completed<PeerKey.Slot>> done;
        try {
            done = skip ? rs.skip(from, round) : rs.offer(from, round, slot);
        } catch (IllegalStateException e) {
            if (slot != null && slot.owner() != null) {
                pk.give(slot.owner());
            }
            pk.broken = e.getMessage();
            return;
        }
        finish(pk, c, done);
    }

    /** Sums each completed round of chunk {@code c} in rank order, sends the sum to the others (a slice's), takes it here. */
    private void finish(PeerKey pk, KeyLayout.Chunk c, List<RoundState.Completed<PeerKey.Slot>> done) {
        for (RoundState.Completed<PeerKey.Slot> r : done) {
            boolean applied = pk.applied.started() && r.round() <= pk.applied.applied();
            PeerKey.RoundSum sum = applied ? null : pk.sum(r.round());
            List<FloatBuffer> parts = new ArrayList<>(r.slots().size());
            for (PeerKey.Slot s : r.slots()) {
                parts.add(s.floats());
            }
            if (sum != null && !parts.isEmpty()) {
                Sums.into(parts, sum.floats(c.offset(), c.count()));
                sum.hasData = true;
            }
            for (PeerKey.Slot s : r.slots()) {
                if (s.owner() != null) {
                    pk.give(s.owner());
                }
            }
            if (sum != null && c.reducer() != KeyLayout.EVERY_RANK) {
                for (int to = 0; to < workers; to++) {
                    if (to != rank && !x.saidBye[to]) {
                        ByteBuf part = parts.isEmpty() ? null
                                : SharedView.toRead(sum.buf, c.offset() * Float.BYTES, c.count() * Float.BYTES);
                        x.stats.sent(part == null ? 0 : part.readableBytes());
                        x.out.to(to, Frame.sum(r.round(), pk.layout.key(), pk.layout.length(), c.offset(),
                                parts.isEmpty() ? -1 : c.count()), part, null);
                    }
                }
            }
            if (sum != null) {
                pk.arrived(r.round());
            }
        }
    }

    private RoundState<PeerKey.Slot> reducerState() {
        RoundState<PeerKey.Slot> rs = new RoundState<>(workers, false);
        rs.ready(0);
        for (int r = 0; r < workers; r++) {
            if (ended[r] >= 0) {
                rs.endOfData(r, ended[r]);
            }
        }
        return rs;
    }

    /** Rank {@code r} ended {@code period}: the rounds this worker sums complete without it; CLOSED once all have. */
    void ended(int r, int period) {
        if (period <= ended[r]) {
            return;
        }
        ended[r] = period;
        for (PeerKey pk : x.keys.values()) {
            for (KeyLayout.Chunk c : pk.layout.chunks()) {
                RoundState<PeerKey.Slot> rs = pk.reducing.get(c.index());
                if (rs != null) {
                    finish(pk, c, rs.endOfData(r, period));
                }
            }
        }
        int all = Integer.MAX_VALUE;
        for (int e : ended) {
            all = Math.min(all, e);
        }
        // Every rank ended these periods: every sum of them this worker makes is sent (above, or before).
        while (sentClosed < all) {
            sentClosed = all == Integer.MAX_VALUE ? Integer.MAX_VALUE : sentClosed + 1;
            for (int to = 0; to < workers; to++) {
                if (to != rank && !x.saidBye[to]) {
                    x.out.to(to, Frame.closed(rank, sentClosed), null, null);
                }
            }
            x.closedBy[rank] = sentClosed;
            x.notifyAll(); // an elastic barrier waits for it (PeerExchange.awaitClosed)
        }
    }
}
