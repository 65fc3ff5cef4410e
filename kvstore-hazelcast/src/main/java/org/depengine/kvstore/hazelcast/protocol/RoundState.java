package org.depengine.kvstore.hazelcast.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.depengine.kvstore.spi.Rounds;

/**
 * The rounds of one key (or one part of a key) where they are summed: which rank's contribution to which
 * round has arrived, when a round is complete, the periods ranks have ended, and the rounds a lost rank
 * leaves unable to complete. Pure bookkeeping, no transport: the Hazelcast entry processors of
 * {@code updateOn=server} and the reducers of {@code updateOn=worker} both keep their rounds in one.
 *
 * <h2>The rules ({@code dist_sync})</h2>
 * <ul>
 *   <li>Round {@code r} ({@link Rounds}: a period and an index) has one slot per rank. It is complete when
 *   every rank that has not ended the round's period has filled its slot, at least one slot holds data,
 *   every earlier round is complete, and the key is {@link #ready()} (its initial value has landed).</li>
 *   <li>Rounds complete in round order; each is handed to the caller once, with its slots in rank order
 *   (empty and skipped slots left out), so every run sums the same way.</li>
 *   <li>A contribution to a completed round is ignored, and a repeated one replaces its own slot: a
 *   retried call is harmless.</li>
 *   <li>A rank's end of a period ({@link #endOfData}) completes, without it, every round of that period
 *   it has not filled; ends only move forward.</li>
 *   <li>A lost rank ({@link #lost}) fails every round it has not filled (rounds it filled still complete),
 *   so {@link #read} of a later round answers the failure instead of waiting forever. Rank
 *   {@link #INIT_RANK} lost before the init landed fails every read: the key can never be ready.</li>
 *   <li>In an elastic job a lost rank is {@link #dropped} instead: it ends every period, so the rounds it has
 *   not filled complete without it, and what it filled stays. {@link #lastData} says up to which round its
 *   data is in, which tells a split key's torn round (docs/elastic-design.md, section 9).</li>
 * </ul>
 * {@code dist_async}: each contribution is a round of its own, completed in arrival order once the key
 * is ready; a rank's contribution of a round it already gave is ignored.
 *
 * <p>Not thread-safe: its owner serializes the calls (Hazelcast runs a key's entry processors one at a
 * time; a reducer holds its lock).
 *
 * @param <S> a slot's data
 */
public final class RoundState<S> {
    /** What a slot holds for a rank whose contribution of a round was skipped (its producer failed). */
    private static final Object SKIPPED = new Object() {
        @Override
        public String toString() {
            return "skipped";
        }
    };

    /** The rank whose init gives the key its initial value ({@link #ready}). */
    public static final int INIT_RANK = 0;

    private final int workers;
    private final boolean async;
    private boolean ready;
    /** The last completed round ({@code dist_sync}), or the number of contributions completed ({@code dist_async}). */
    private long completed;
    private final int[] endedPeriod;
    /** Per rank: {@code dist_async}, its last contribution taken in; {@code dist_sync}, the last round it gave data to. */
    private final long[] lastPushed;
    /** Round → one slot per rank (null: not filled; {@link #SKIPPED}; or the data). */
    private final TreeMap<Long, Object[]> pending = new TreeMap<>();
    private String failure;
    private long failedAfter;

    /**
     * @param workers the ranks of the job
     * @param async whether each contribution is a round of its own ({@code dist_async})
     */
    public RoundState(int workers, boolean async) {
        if (workers < 1) {
            throw new IllegalArgumentException("a job has at least one worker, got " + workers);
        }
        this.workers = workers;
        this.async = async;
        this.endedPeriod = new int[workers];
        Arrays.fill(endedPeriod, -1);
        this.lastPushed = new long[workers];
    }

    /** A round handed to the caller once complete: its number and its slots' data in rank order. */
    public record Completed<S>(long round, List<S> slots) {
    }

    /** The ranks of the job. */
    public int workers() {
        return workers;
    }

    /** Whether each contribution is a round of its own. */
    public boolean async() {
        return async;
    }

    /** Whether the key's initial value has landed: no round completes before. */
    public boolean isReady() {
        return ready;
    }

    /** The last completed round ({@code dist_sync}) or the contributions completed ({@code dist_async}). */
    public long completed() {
        return completed;
    }

    /** Why rounds after {@link #failedAfter()} cannot complete, or null. */
    public String failure() {
        return failure;
    }

    /** The last round that can still complete once a rank is lost (meaningful when {@link #failure()} is set). */
    public long failedAfter() {
        return failedAfter;
    }

    /** The last period {@code rank} has ended, or -1. */
    public int endedPeriod(int rank) {
        return endedPeriod[rank];
    }

    /** Whether {@code rank} has ended {@code period} (so contributes nothing more to it). */
    public boolean hasEnded(int rank, int period) {
        return endedPeriod[rank] >= period;
    }

    /** Whether some round is waiting for contributions. */
    public boolean hasPending() {
        return !pending.isEmpty();
    }

    /**
     * The key's initial value has landed at round {@code round} (0, or a resumed key's checkpoint round):
     * completes the rounds that were waiting for it.
     */
    public List<Completed<S>> ready(long round) {
        if (ready) {
            return List.of();
        }
        ready = true;
        completed = round;
        return completeRounds();
    }

    /**
     * Rank {@code rank}'s contribution {@code slot} to round {@code round} (ignored if that round is
     * complete, or, {@code dist_async}, if this rank's contribution of that round was taken in already).
     *
     * @return the rounds it completes, in order
     * @throws IllegalStateException if the rank ended the round's period already (its worker broke the
     *     protocol), or a lost rank keeps the round from ever completing
     */
    public List<Completed<S>> offer(int rank, long round, S slot) {
        return put(rank, round, slot);
    }

    /** Rank {@code rank}'s contribution to {@code round} is empty (its producer failed): the round completes without data from it. */
    public List<Completed<S>> skip(int rank, long round) {
        checkRank(rank);
        if (async || round <= completed || failure != null || endedPeriod[rank] >= Rounds.period(round)) {
            return List.of(); // nothing to wait for from this rank in that round
        }
        return put(rank, round, SKIPPED);
    }

    private List<Completed<S>> put(int rank, long round, Object slot) {
        checkRank(rank);
        if (async) {
            if (round <= lastPushed[rank]) {
                return List.of();
            }
            lastPushed[rank] = round;
            long seq = pending.isEmpty() ? completed + 1 : pending.lastKey() + 1;
            Object[] slots = new Object[workers];
            slots[rank] = slot;
            pending.put(seq, slots);
            return completeRounds();
        }
        if (endedPeriod[rank] >= Rounds.period(round)) {
            throw new IllegalStateException("rank " + rank + " contributed to round " + Rounds.text(round)
                    + " after signalling its end of data for period " + endedPeriod[rank]);
        }
        if (failure != null && round > failedAfter) {
            throw new IllegalStateException(failure);
        }
        if (round > completed) {
            pending.computeIfAbsent(round, r -> new Object[workers])[rank] = slot;
        }
        if (slot != SKIPPED) {
            lastPushed[rank] = Math.max(lastPushed[rank], round); // a repeat of a completed round's push included
        }
        return completeRounds();
    }

    /** Rank {@code rank} has no more data in {@code period} (or before): those rounds complete without it. */
    public List<Completed<S>> endOfData(int rank, int period) {
        checkRank(rank);
        endedPeriod[rank] = Math.max(endedPeriod[rank], period);
        return completeRounds();
    }

    /**
     * Rank {@code rank} was dropped from an elastic job's view ({@code dist_sync}): as a rank that closed
     * normally, it ends every period, so every round it has not filled completes without it, while the
     * data it gave stays in its rounds. It contributes nothing from now on (a later contribution is refused
     * as one after its end of data), so {@link #lastData} is final. Dropping it again changes nothing.
     *
     * @return the rounds this completes, in order
     */
    public List<Completed<S>> dropped(int rank) {
        return endOfData(rank, Integer.MAX_VALUE);
    }

    /**
     * {@code dist_sync}: the last round {@code rank} gave data to (a skipped push gives none), 0 if none. The
     * rounds of one rank come in order (a worker pushes a key's next round once every part of the one before
     * was taken in), so every round up to it holds its data, except that last one where a key's parts can
     * differ: the worker may have died while its push of that round reached only some of them.
     */
    public long lastData(int rank) {
        checkRank(rank);
        return async ? 0 : lastPushed[rank];
    }

    /**
     * Rank {@code rank} is lost: the rounds it has not filled can never complete. The first loss is kept
     * (later ones change nothing); {@code dist_async} rounds need no rank, so nothing fails. Rank
     * {@link #INIT_RANK} lost before the key's init landed fails every read, the init's included, in
     * either mode: the init never lands.
     *
     * @return the last round that can still complete: -1 if not even the init can
     */
    public long lost(int rank, String why) {
        checkRank(rank);
        if (failure == null && !ready && rank == INIT_RANK) {
            // The init is rank 0's: lost before it landed, it never lands, and no round (not even the init's) completes.
            failedAfter = -1;
            failure = why;
        } else if (!async && failure == null) {
            long last = completed;
            for (Map.Entry<Long, Object[]> e : pending.entrySet()) {
                if (e.getValue()[rank] != null) {
                    last = e.getKey();
                }
            }
            failedAfter = last;
            failure = why;
        }
        return failedAfter;
    }

    /** What a read of round {@code round} finds now ({@code dist_async} reads want the latest: pass 0). */
    public Answer read(long round, String key) {
        if (ready && (async || completed >= round
                || Rounds.index(round) == 0 && periodDone(Rounds.period(round) - 1))) {
            return Answer.READY;
        }
        if (failure != null && round > failedAfter) {
            return Answer.failed(failure);
        }
        if (!ready) {
            return Answer.notReady("the init of key '" + key + "' (by rank 0) has not landed");
        }
        return Answer.notReady("key '" + key + "' has completed round " + Rounds.text(completed)
                + "; ranks still to push the next: " + missingRanks());
    }

    /** Whether every rank has ended {@code period} and no round of it (or before) is pending. */
    public boolean periodDone(int period) {
        for (int e : endedPeriod) {
            if (e < period) {
                return false;
            }
        }
        return pending.isEmpty() || Rounds.period(pending.firstKey()) > period;
    }

    /** The ranks (not ended) whose slot for the next pending round is missing, for messages. */
    public String missingRanks() {
        if (pending.isEmpty()) {
            return "all (no push of the next round has arrived)";
        }
        Map.Entry<Long, Object[]> next = pending.firstEntry();
        int period = Rounds.period(next.getKey());
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < workers; r++) {
            if (endedPeriod[r] < period && next.getValue()[r] == null) {
                sb.append(sb.length() == 0 ? "" : ",").append(r);
            }
        }
        return sb.toString();
    }

    /** Whether the slots of pending rounds hold data of {@code length} only (a check before the init lands). */
    public String firstMismatch(int length, java.util.function.ToIntFunction<S> lengthOf) {
        for (Object[] slots : pending.values()) {
            for (Object slot : slots) {
                if (slot != null && slot != SKIPPED) {
                    @SuppressWarnings("unchecked")
                    int n = lengthOf.applyAsInt((S) slot);
                    if (n != length) {
                        return "a push of " + n + " floats arrived before the init of " + length;
                    }
                }
            }
        }
        return null;
    }

    private List<Completed<S>> completeRounds() {
        List<Completed<S>> out = null;
        while (ready && !pending.isEmpty()) {
            Map.Entry<Long, Object[]> first = pending.firstEntry();
            // Each rank's rounds reach the state in order, so the first pending round is the next to complete.
            if (!async && !complete(Rounds.period(first.getKey()), first.getValue())) {
                break;
            }
            pending.pollFirstEntry();
            List<S> data = new ArrayList<>(workers);
            for (Object slot : first.getValue()) { // rank order
                if (slot != null && slot != SKIPPED) {
                    @SuppressWarnings("unchecked")
                    S s = (S) slot;
                    data.add(s);
                }
            }
            completed = first.getKey();
            if (out == null) {
                out = new ArrayList<>(2);
            }
            out.add(new Completed<>(completed, data));
        }
        return out == null ? List.of() : out;
    }

    private boolean complete(int period, Object[] slots) {
        boolean any = false;
        for (int r = 0; r < workers; r++) {
            if (slots[r] == null && endedPeriod[r] < period) {
                return false;
            }
            any |= slots[r] != null;
        }
        return any;
    }

    private void checkRank(int rank) {
        if (rank < 0 || rank >= workers) {
            throw new IllegalArgumentException("rank " + rank + " is not one of the job's " + workers + " ranks");
        }
    }

    // ------------------------------------------------------------ for serializers (a state's copy elsewhere)

    /** The pending rounds, for a serializer: round → per rank, null (not filled), {@code skippedSlot} or the data. */
    public void forEachPending(PendingVisitor<S> visitor) {
        for (Map.Entry<Long, Object[]> e : pending.entrySet()) {
            Object[] slots = e.getValue();
            for (int r = 0; r < workers; r++) {
                Object s = slots[r];
                @SuppressWarnings("unchecked")
                S data = s == null || s == SKIPPED ? null : (S) s;
                visitor.slot(e.getKey(), r, s == null ? SlotKind.EMPTY : s == SKIPPED ? SlotKind.SKIPPED : SlotKind.DATA, data);
            }
        }
    }

    /** The number of pending rounds. */
    public int pendingCount() {
        return pending.size();
    }

    /** Per rank, the last {@code dist_async} contribution taken in; {@code dist_sync}: {@link #lastData}. */
    public long lastPushed(int rank) {
        return lastPushed[rank];
    }

    /** What a pending slot holds. */
    public enum SlotKind { EMPTY, SKIPPED, DATA }

    /** Visits the pending slots. */
    @FunctionalInterface
    public interface PendingVisitor<S> {
        /** Slot {@code rank} of {@code round}: its kind and (for DATA) its data. */
        void slot(long round, int rank, SlotKind kind, S data);
    }

    /**
     * Restores a state a serializer read: what {@link #forEachPending} and the getters gave.
     *
     * @return a builder of the pending slots
     */
    public Restorer<S> restore(boolean ready, long completed, int[] endedPeriod, long[] lastPushed, String failure,
                               long failedAfter) {
        this.ready = ready;
        this.completed = completed;
        System.arraycopy(endedPeriod, 0, this.endedPeriod, 0, workers);
        System.arraycopy(lastPushed, 0, this.lastPushed, 0, workers);
        this.failure = failure;
        this.failedAfter = failedAfter;
        this.pending.clear();
        return (round, rank, kind, data) -> {
            if (kind != SlotKind.EMPTY) {
                pending.computeIfAbsent(round, x -> new Object[workers])[rank] = kind == SlotKind.SKIPPED ? SKIPPED : data;
            } else {
                pending.computeIfAbsent(round, x -> new Object[workers]);
            }
        };
    }

    /** Puts back one pending slot of a restored state. */
    @FunctionalInterface
    public interface Restorer<S> extends PendingVisitor<S> {
    }

    /** A copy sharing the slots' data (slots are never changed once in): for a backup taken after a change. */
    public RoundState<S> copy() {
        RoundState<S> c = new RoundState<>(workers, async);
        c.ready = ready;
        c.completed = completed;
        System.arraycopy(endedPeriod, 0, c.endedPeriod, 0, workers);
        System.arraycopy(lastPushed, 0, c.lastPushed, 0, workers);
        pending.forEach((r, slots) -> c.pending.put(r, slots.clone()));
        c.failure = failure;
        c.failedAfter = failedAfter;
        return c;
    }
}
