package org.depengine.kvstore;

import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.depengine.kvstore.spi.Rounds;

/**
 * One change of an elastic store's membership as this worker applied it: the view (epoch) it moved to,
 * its rank before and after, who left and who joined, and from which round on each key is summed over
 * the new view. Handed to {@link MembershipListener#changed} (which says when and on which thread).
 * Immutable; the constructor checks every component.
 *
 * <p>Ranks are dense and given again at each view: the workers that stay keep their relative order,
 * and joiners follow in the order they were admitted. A round open when a worker is lost completes with
 * the workers that stay: the rounds before {@link #firstRoundOf()}'s are summed over the view before,
 * that round and the later ones over the new view.
 *
 * @param epoch the number of the view this worker moved to: at least 1 (the job starts in view 0)
 * @param previousRank this worker's rank in the view before, or -1 if this worker joined the job in this
 *     change
 * @param rank this worker's rank in the new view, in {@code [0, numWorkers)}: what {@link KVStore#rank()}
 *     answers from now on
 * @param numWorkers the number of workers of the new view: what {@link KVStore#numWorkers()} answers from now on
 * @param left the workers that left, in the order of their ranks in the view before; empty if none
 * @param joined the workers admitted, in the order of their ranks in the new view; empty if none
 * @param firstRoundOf every key existing at the change, in key order, mapped to the first of its rounds
 *     summed over the new view. A round is a {@code long} as {@link Rounds} defines it:
 *     {@link Rounds#period(long)} is the number of {@link KVStore#barrier()} calls before it,
 *     {@link Rounds#index(long)} which push of the key it is within that period (from 1; a worker's
 *     {@code n}-th push of the key after that many barriers), and {@link Rounds#text(long)} writes it for
 *     messages. So this worker's pushes of the key from that one on are summed with the new view's workers.
 *     Where the keys' owners sum the rounds ({@code dist_sync} with {@code updateOn=server}), it is the round
 *     after the last one a departed worker's push reached. A {@code dist_async} store sums no round: there it
 *     is the round after this worker's last push of the key before the change, so its pushes from that one on
 *     were made in the new view.
 */
public record MembershipChange(int epoch, int previousRank, int rank, int numWorkers, List<Departure> left,
        List<Arrival> joined, Map<String, Long> firstRoundOf) {

    /**
     * Checks every component and keeps immutable copies of the lists and the map.
     *
     * @throws IllegalArgumentException if {@code epoch} is below 1, {@code numWorkers} below 1, {@code rank}
     *     outside {@code [0, numWorkers)}, {@code previousRank} below -1, two departures or two arrivals
     *     have one rank, an arrival's rank is not below {@code numWorkers}, a round of {@code firstRoundOf}
     *     is not a push's round (negative, or index 0), nothing left and nothing joined, or
     *     {@code previousRank} is -1 while no arrival has {@code rank} (or the other way round)
     * @throws NullPointerException if a list, the map, an element, a key or a value is null (the message
     *     names which)
     */
    public MembershipChange {
        if (epoch < 1) {
            throw new IllegalArgumentException("a membership change's epoch is at least 1 (the job starts in view 0): "
                    + epoch);
        }
        if (numWorkers < 1) {
            throw new IllegalArgumentException("view " + epoch + " has numWorkers=" + numWorkers + "; a view holds at "
                    + "least one worker");
        }
        if (rank < 0 || rank >= numWorkers) {
            throw new IllegalArgumentException("rank " + rank + " is not in [0, " + numWorkers + ") in view " + epoch);
        }
        if (previousRank < -1) {
            throw new IllegalArgumentException("previousRank " + previousRank + " in view " + epoch + ": a rank, or -1 "
                    + "for a worker that joined in this change");
        }
        left = copy(left, "left", epoch, Departure::rank, Integer.MAX_VALUE);
        joined = copy(joined, "joined", epoch, Arrival::rank, numWorkers);
        firstRoundOf = rounds(firstRoundOf, epoch);
        if (left.isEmpty() && joined.isEmpty()) {
            throw new IllegalArgumentException("the change to view " + epoch + " has no departure and no arrival");
        }
        if ((previousRank == -1) != joined.stream().anyMatch(a -> a.rank() == rank)) {
            throw new IllegalArgumentException("previousRank " + previousRank + " and joined " + joined + " disagree in "
                    + "the change to view " + epoch + ": a worker joins in a change (previousRank -1) exactly when an "
                    + "arrival has its new rank " + rank);
        }
    }

    /** An immutable copy of {@code list}, refusing a null element, two elements of one rank, or a rank not below {@code bound}. */
    private static <T> List<T> copy(List<T> list, String name, int epoch, ToIntFunction<T> rankOf, int bound) {
        Objects.requireNonNull(list, name);
        Set<Integer> ranks = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            int at = i;
            T t = Objects.requireNonNull(list.get(i), () -> name + "[" + at + "] is null in the change to view " + epoch);
            int r = rankOf.applyAsInt(t);
            if (r >= bound) {
                throw new IllegalArgumentException(name + "[" + i + "] has rank " + r + ", not below numWorkers=" + bound
                        + " of view " + epoch + ": " + t);
            }
            if (!ranks.add(r)) {
                throw new IllegalArgumentException("rank " + r + " is in " + name + " twice in the change to view "
                        + epoch + ": " + list);
            }
        }
        return List.copyOf(list);
    }

    /** An immutable copy of {@code rounds} in key order, refusing a null key or value, or a round no push has. */
    private static Map<String, Long> rounds(Map<String, Long> rounds, int epoch) {
        Objects.requireNonNull(rounds, "firstRoundOf");
        TreeMap<String, Long> copy = new TreeMap<>();
        rounds.forEach((key, round) -> {
            Objects.requireNonNull(key, () -> "firstRoundOf has a null key in the change to view " + epoch);
            Objects.requireNonNull(round, () -> "firstRoundOf's round of key '" + key + "' is null in the change to "
                    + "view " + epoch);
            if (round < 0 || Rounds.index(round) == 0) {
                throw new IllegalArgumentException("firstRoundOf's round of key '" + key + "' is " + round + ", not a "
                        + "push's round (a period at least 0 and an index from 1) in the change to view " + epoch);
            }
            copy.put(key, round);
        });
        return Collections.unmodifiableSortedMap(copy);
    }

    /**
     * A worker that left the job in this change.
     *
     * @param rank its rank in the view before, at least 0
     * @param member its member id in the cluster (the process's endpoint), for messages and logs
     * @param why how it was seen to leave, for messages: e.g. {@code "killed: its connection closed"}
     * @param detectedAt when its departure was detected
     */
    public record Departure(int rank, String member, String why, Instant detectedAt) {
        /**
         * @throws IllegalArgumentException if {@code rank} is negative
         * @throws NullPointerException if {@code member}, {@code why} or {@code detectedAt} is null
         */
        public Departure {
            if (rank < 0) {
                throw new IllegalArgumentException("a departed worker's rank is at least 0: " + rank + " (" + member + ")");
            }
            Objects.requireNonNull(member, "member");
            Objects.requireNonNull(why, "why");
            Objects.requireNonNull(detectedAt, "detectedAt");
        }
    }

    /**
     * A worker admitted to the job in this change.
     *
     * @param rank its rank in the new view, at least 0
     * @param member its member id in the cluster (the process's endpoint), for messages and logs
     * @param fromPeriod the first period it pushes in (the number of {@link KVStore#barrier()} calls before
     *     it): its admission boundary, at least 0
     */
    public record Arrival(int rank, String member, int fromPeriod) {
        /**
         * @throws IllegalArgumentException if {@code rank} or {@code fromPeriod} is negative
         * @throws NullPointerException if {@code member} is null
         */
        public Arrival {
            if (rank < 0) {
                throw new IllegalArgumentException("an admitted worker's rank is at least 0: " + rank + " (" + member + ")");
            }
            if (fromPeriod < 0) {
                throw new IllegalArgumentException("an admitted worker's first period is at least 0: " + fromPeriod
                        + " (" + member + ")");
            }
            Objects.requireNonNull(member, "member");
        }
    }
}
