package org.depengine.kvstore.hazelcast.peer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.hazelcast.protocol.RoundState;
import org.depengine.kvstore.spi.Rounds;

/**
 * A {@link PeerExchange}'s last resort: an op that has seen no progress on its key for {@code timeoutMs}
 * fails, naming what it waits for (the rounds that reached this worker, the ranks that sum the key's
 * parts, the ranks that have not closed a period); and in an elastic job, a view change not installed within
 * {@code recoveryTimeoutMs} fails every op, naming what it waits for.
 */
final class Timeouts {
    private final PeerExchange x;

    Timeouts(PeerExchange x) {
        this.x = x;
    }

    /** Fails the ops that have seen no progress for {@code x.timeoutMs}, naming what they wait for. */
    void sweep() {
        List<Object[]> expired = new ArrayList<>();
        long now = System.nanoTime();
        String late;
        synchronized (x) {
            late = x.change.overdue();
        }
        if (late != null) {
            x.failAll(late);
        }
        synchronized (x) {
            for (PeerKey pk : x.keys.values()) {
                PeerKey.Waiter w = pk.waiter;
                if (w != null && !pk.applying && now - w.since > TimeUnit.MILLISECONDS.toNanos(x.timeoutMs)) {
                    expired.add(new Object[] {w, pk.layout.key(), waitingFor(pk, w)});
                    pk.waiter = null;
                }
            }
        }
        for (Object[] e : expired) {
            PeerKey.Waiter w = (PeerKey.Waiter) e[0];
            w.done.fail(x.failure((String) e[1], w.what, "no progress for " + x.timeoutMs
                    + " ms (depengine.kvstore.timeoutMs): " + e[2]));
        }
    }

    /** What the op {@code w} on {@code pk} still waits for, for its timeout's message (under the lock). */
    private String waitingFor(PeerKey pk, PeerKey.Waiter w) {
        if (!pk.applied.started()) {
            return "rank 0's init of the key has not arrived";
        }
        StringBuilder sb = new StringBuilder("this worker's copy is as of round " + Rounds.text(pk.applied.applied())
                + "; sums here: " + pk.applied.waiting());
        for (KeyLayout.Chunk c : pk.layout.chunks()) {
            RoundState<PeerKey.Slot> rs = pk.reducing.get(c.index());
            if (rs != null && rs.hasPending()) {
                sb.append("; part ").append(c.index()).append(" (summed here) waits for ranks ").append(rs.missingRanks());
            }
        }
        if (w.round > 0) {
            List<Integer> reducers = new ArrayList<>();
            for (KeyLayout.Chunk c : pk.layout.chunks()) {
                if (c.reducer() != KeyLayout.EVERY_RANK && !reducers.contains(c.reducer())) {
                    reducers.add(c.reducer());
                }
            }
            sb.append(reducers.isEmpty() ? "; every rank's push of round " + Rounds.text(w.round) + " is summed here"
                    : "; the key's parts are summed by ranks " + reducers);
        }
        List<Integer> open = new ArrayList<>();
        for (int r = 0; r < x.workers; r++) {
            if (x.closedBy[r] < w.closedPeriod) {
                open.add(r);
            }
        }
        if (!open.isEmpty()) {
            sb.append("; ranks that have not closed period ").append(w.closedPeriod).append(": ").append(open);
        }
        return sb.toString();
    }
}
