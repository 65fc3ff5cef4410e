package org.depengine.kvstore.hazelcast.protocol;

import java.util.Map;
import java.util.TreeMap;
import org.depengine.kvstore.spi.Rounds;

/**
 * On one worker, one key, with {@code updateOn=worker}: which rounds' sums have reached this worker and
 * which it has applied to its copy of the key. Every worker applies every round of the key, in round order
 * and none twice, whether or not it pushed to it (a worker that ended a period early applies the others'
 * later rounds of that period at its next period), so every worker's copy goes through the same values.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li>A round's sum has arrived once each of the key's {@code chunks} parts has.</li>
 *   <li>Within a period, rounds are numbered 1, 2, ... without gaps (every rank numbers its pushes so), so
 *   round {@code (p, i + 1)} follows {@code (p, i)}.</li>
 *   <li>Whether a period has more rounds is known only once it is closed everywhere: every rank has ended
 *   it and every sum of it has been sent ({@code closedThrough}, the latest period closed for this worker,
 *   from the transport's in-order delivery). So the first round of a later period is applied only once
 *   every period before it is closed.</li>
 *   <li>A round applied is never applied again; its sum arriving again (a reducer that computed it twice)
 *   is ignored.</li>
 * </ul>
 *
 * <p>Not thread-safe: the caller serializes the calls.
 */
public final class AppliedRounds {
    private final int chunks;
    private boolean started;
    private int startPeriod;
    private int appliedPeriod;
    private long appliedIndex;
    /** The round applied before the last one, or -1: unknown (the copy is its init's, or came by a state transfer). */
    private long previous = -1;
    private final TreeMap<Long, int[]> arrived = new TreeMap<>();
    /** A round a view change's recovery forwarded whole, to apply next whatever the periods closed; or -1. */
    private long forwarded = -1;

    /**
     * Rounds whose sums arrive in {@code chunks} parts; nothing is applied before {@link #start} (sums may
     * arrive before this worker initialised the key).
     */
    public AppliedRounds(int chunks) {
        this.chunks = chunks;
    }

    /**
     * This worker's copy holds the key's initial value.
     *
     * @param initRound the round the key's initial value stands for: 0, or a resumed key's {@code (P, 0)}
     * @param initPeriod the period the key was initialised in (its rounds are of it and later ones)
     */
    public void start(long initRound, int initPeriod) {
        startPeriod = Math.max(initPeriod, Rounds.period(initRound));
        appliedPeriod = startPeriod;
        appliedIndex = 0;
        previous = -1;
        started = true;
        arrived.headMap(applied(), true).clear();
    }

    /**
     * The rounds as they stand, with sums arriving in {@code chunks} parts from now on: for a view change,
     * which lays the key out again. Parts that arrived of rounds not applied are not carried over: they are
     * the old view's, and the rounds they belong to are summed again under the new one.
     */
    public AppliedRounds changeView(int chunks) {
        AppliedRounds next = new AppliedRounds(chunks);
        next.started = started;
        next.startPeriod = startPeriod;
        next.appliedPeriod = appliedPeriod;
        next.appliedIndex = appliedIndex;
        next.previous = previous;
        return next;
    }

    /**
     * This worker's copy is now as of {@code round}: it took a survivor's state as of that round, in a view
     * change's recovery. Parts that arrived of rounds up to it are dropped; the round before is not known.
     *
     * @throws IllegalStateException if the copy is as of {@code round} or later already
     */
    public void recoveredTo(long round) {
        if (started && round <= applied()) {
            throw new IllegalStateException("round " + Rounds.text(round) + " is not after round " + Rounds.text(applied())
                    + ", which this copy applied already");
        }
        previous = -1;
        if (!started) {
            startPeriod = Rounds.period(round);
            started = true;
        }
        appliedPeriod = Rounds.period(round);
        appliedIndex = Rounds.index(round);
        arrived.headMap(round, true).clear();
        if (forwarded <= round) {
            forwarded = -1;
        }
    }

    /**
     * {@code round}'s whole sum was forwarded by a view change's recovery, which agreed that it is the round
     * after this copy's: it is applied next, whether or not its period's predecessors are closed here.
     *
     * @throws IllegalStateException if the copy has no init yet or is past {@code round}
     */
    public void forwarded(long round) {
        if (!started || round <= applied()) {
            throw new IllegalStateException("round " + Rounds.text(round) + " cannot be forwarded to a copy "
                    + (started ? "as of round " + Rounds.text(applied()) : "without its init"));
        }
        arrived.put(round, new int[] {chunks});
        forwarded = round;
    }

    /** The round applied before {@link #applied()}, or -1 when not known (the copy is its init's, or a transferred state's). */
    public long previous() {
        return previous;
    }

    /** Whether {@link #start} was called. */
    public boolean started() {
        return started;
    }

    /** The last round applied: {@code (period, index)}, index 0 before the period's first. */
    public long applied() {
        return Rounds.of(appliedPeriod, appliedIndex);
    }

    /** The period the key's rounds start in. */
    public int startPeriod() {
        return startPeriod;
    }

    /**
     * One part of {@code round}'s sum has arrived.
     *
     * @return whether the round's sum is now whole (and not applied already)
     */
    public boolean arrived(long round) {
        if (started && round <= applied()) {
            return false;
        }
        int[] n = arrived.computeIfAbsent(round, r -> new int[1]);
        return ++n[0] == chunks;
    }

    /** Whether {@code round}'s sum has arrived whole and waits to be applied. */
    public boolean whole(long round) {
        int[] n = arrived.get(round);
        return n != null && n[0] >= chunks;
    }

    /**
     * The round to apply next, if its sum is whole and nothing may come between: the next index of the
     * same period, or the first of a later period once every period before it is closed; else -1.
     *
     * @param closedThrough the latest period closed everywhere for this worker
     */
    public long next(int closedThrough) {
        Map.Entry<Long, int[]> first = arrived.firstEntry();
        if (!started || first == null || first.getValue()[0] < chunks) {
            return -1;
        }
        long r = first.getKey();
        if (r == forwarded) {
            return r;
        }
        int p = Rounds.period(r);
        long i = Rounds.index(r);
        if (p == appliedPeriod && i == appliedIndex + 1) {
            return r;
        }
        if (p > appliedPeriod && i == 1 && closedThrough >= p - 1) {
            return r;
        }
        return -1;
    }

    /** {@code round} (the one {@link #next} gave) has been applied. */
    public void applied(long round) {
        if (arrived.pollFirstEntry().getKey() != round) {
            throw new IllegalStateException("round " + Rounds.text(round) + " applied out of order");
        }
        previous = applied();
        if (round == forwarded) {
            forwarded = -1;
        }
        appliedPeriod = Rounds.period(round);
        appliedIndex = Rounds.index(round);
    }

    /**
     * Whether this worker's copy is as of at least round {@code round} (0: anything) and, if
     * {@code closedPeriod} is one of the key's, holds every round of that period and the ones before.
     */
    public boolean reached(long round, int closedPeriod, int closedThrough) {
        if (!started || round > 0 && applied() < round) {
            return false;
        }
        if (closedPeriod < startPeriod) {
            return true;
        }
        if (closedThrough < closedPeriod) {
            return false;
        }
        Long first = arrived.isEmpty() ? null : arrived.firstKey();
        return first == null || Rounds.period(first) > closedPeriod;
    }

    /** The rounds whose sums have arrived in part or whole and wait: for messages. */
    public String waiting() {
        StringBuilder sb = new StringBuilder();
        arrived.forEach((r, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(Rounds.text(r)).append(" (")
                .append(n[0]).append(" of ").append(chunks).append(" parts)"));
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
