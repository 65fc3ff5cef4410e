package org.depengine.kvstore.hazelcast.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One membership epoch of an elastic job ({@code docs/elastic-design.md}, section 2): its number, its
 * members in rank order and what began it. A worker's rank in a view is its index in {@link #members()}.
 * Ranks are dense and given again at each view: the survivors of a loss keep their relative order (so
 * rank-order sums keep it too), and joiners follow, in the order they were admitted. Immutable.
 *
 * <p>Pure: members are opaque ids (a worker process's cluster endpoint), and nothing here talks to the
 * cluster. Step 2 of the design; the store does not install views yet.
 *
 * @param epoch the view's number: 0 for the job's first, then one more at each change
 * @param members the members' ids in rank order: at least one, none twice
 * @param cause what began the view, for messages: who left or joined, and how it was seen
 */
public record View(int epoch, List<String> members, String cause) {
    /**
     * @throws IllegalArgumentException if {@code epoch} is negative, or {@code members} is empty or lists
     *     an id twice
     * @throws NullPointerException if a list, an id or the cause is null
     */
    public View {
        if (epoch < 0) {
            throw new IllegalArgumentException("a view's epoch is at least 0: " + epoch);
        }
        members = List.copyOf(members); // refuses a null id
        Objects.requireNonNull(cause, "cause");
        if (members.isEmpty()) {
            throw new IllegalArgumentException("view " + epoch + " has no member; a job's view holds at least one worker");
        }
        Set<String> seen = new HashSet<>();
        for (String m : members) {
            if (!seen.add(m)) {
                throw new IllegalArgumentException("member " + m + " is listed twice in view " + epoch);
            }
        }
    }

    /** The job's first view (epoch 0): the workers that opened it, in rank order. */
    public static View first(List<String> members) {
        return new View(0, members, "the job started");
    }

    /** The number of workers in the view. */
    public int size() {
        return members.size();
    }

    /** {@code member}'s rank in this view, or -1 if it is not a member. */
    public int rankOf(String member) {
        return members.indexOf(member);
    }

    /**
     * The next view after {@code lost} left: the survivors in their relative order.
     *
     * @throws IllegalArgumentException if {@code lost} is empty, names a worker that is not a member, or
     *     every member (a job of no worker has no view: it fails instead)
     */
    public View without(Collection<String> lost, String why) {
        if (lost.isEmpty()) {
            throw new IllegalArgumentException("no worker left view " + epoch + "; a loss names who left");
        }
        for (String m : lost) {
            if (rankOf(m) < 0) {
                throw new IllegalArgumentException(m + " is not a member of view " + epoch + " " + members + "; it cannot leave it");
            }
        }
        List<String> survivors = new ArrayList<>(members);
        survivors.removeAll(lost);
        if (survivors.isEmpty()) {
            throw new IllegalArgumentException("every member of view " + epoch + " left; no view follows");
        }
        return new View(epoch + 1, survivors, why);
    }

    /**
     * The next view after {@code joiners} were admitted: this view's members, then the joiners in order.
     *
     * @throws IllegalArgumentException if {@code joiners} is empty, lists one twice or names a member
     */
    public View with(List<String> joiners, String why) {
        if (joiners.isEmpty()) {
            throw new IllegalArgumentException("no worker joined view " + epoch + "; an admission names who joined");
        }
        for (String m : joiners) {
            if (rankOf(m) >= 0) {
                throw new IllegalArgumentException(m + " is already rank " + rankOf(m) + " of view " + epoch + "; it cannot join it again");
            }
        }
        List<String> next = new ArrayList<>(members);
        next.addAll(joiners);
        return new View(epoch + 1, next, why); // the record refuses a joiner listed twice
    }

    /**
     * Where each of this view's ranks is in {@code next}: element {@code r} is rank {@code r}'s new rank,
     * or -1 if it is not in {@code next}.
     */
    public int[] ranksIn(View next) {
        int[] map = new int[size()];
        for (int r = 0; r < map.length; r++) {
            map[r] = next.rankOf(members.get(r));
        }
        return map;
    }

    /**
     * Whether the members in {@code side} may install the view that follows this one: they are a strict
     * majority of this view's members, or exactly half of them including its rank 0. Two sides of a cut
     * each see the other lost; this rule lets at most one of them go on, so a job never continues as two.
     * Ids in {@code side} that are not members do not count.
     */
    public boolean heldBy(Collection<String> side) {
        int held = 0;
        for (String m : new HashSet<>(side)) {
            if (rankOf(m) >= 0) {
                held++;
            }
        }
        return 2 * held > size() || (2 * held == size() && side.contains(members.get(0)));
    }
}
