package org.depengine.kvstore.hazelcast.protocol;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.depengine.kvstore.spi.Rounds;

/**
 * What the survivors of a view change do with one key's rounds ({@code updateOn=worker}): the rule
 * "complete with the survivors" of {@code docs/elastic-design.md}, section 3, as a pure decision. The
 * recovery's leader gathers one {@link Report} per survivor, taken when that survivor froze for the change
 * (from then on it applies nothing and takes no frame of the old view), and {@link #decide} says:
 * <ul>
 *   <li>the <em>agreed</em> round {@code A}: the highest round any survivor has applied. Every round up to
 *   {@code A} stays as it was summed in the old view (the lost worker's push included); every later round
 *   is summed in the new view, from the survivors' pushes only. No round is ever part old, part new.</li>
 *   <li>per survivor behind {@code A}, how it catches up: the one round behind ({@link Action#FORWARD}) is
 *   sent {@code A}'s sum by a survivor that applied {@code A} from its sum and kept it (it applies it as
 *   its next round); any other ({@link Action#STATE}: it ended the period early and lags several rounds,
 *   or never received the key's init) is sent the key's whole state as of {@code A}, value, optimizer
 *   state and update count, by a survivor at {@code A}.</li>
 *   <li>per survivor, whether it re-sends its open push (a round after {@code A}): the old view's partial
 *   sums of it are dropped everywhere, so it is summed again under the new view's layout.</li>
 * </ul>
 *
 * <p>Why this is enough: a worker pushes a key's next round only after it applied its previous one, so any
 * survivor that pushed {@code A} had applied the round before it, and rounds after {@code A} were applied
 * by no survivor, so no copy depends on them. Senders are spread over the survivors that can send, in rank
 * order. Keys are independent: each has its own {@code A}.
 */
public final class ElasticRule {
    /** A round no survivor's copy has reached: the key's init has not reached it. */
    public static final long NOT_STARTED = -1;

    private ElasticRule() {
    }

    /**
     * One survivor's state of one key when it froze for the change.
     *
     * @param member the survivor's id
     * @param applied the last round its copy applied (its init's round when none), or {@link #NOT_STARTED}
     * @param previous the round it applied before {@code applied}, or {@link #NOT_STARTED} when not known (its
     *     copy came by a state transfer, or {@code applied} is the init)
     * @param keptSum whether it holds {@code applied}'s whole sum, so can forward it
     * @param pushed the last round it pushed, 0 if none; after {@code applied} when a push of it is open
     */
    public record Report(String member, long applied, long previous, boolean keptSum, long pushed) {
        /**
         * @throws IllegalArgumentException if the rounds contradict each other (a previous round not before
         *     the applied one, a sum kept of a round never applied)
         */
        public Report {
            Objects.requireNonNull(member, "member");
            if (applied < NOT_STARTED || previous < NOT_STARTED || pushed < 0) {
                throw new IllegalArgumentException(member + " reported negative rounds: applied " + applied + ", previous "
                        + previous + ", pushed " + pushed);
            }
            if (previous != NOT_STARTED && previous >= applied) {
                throw new IllegalArgumentException(member + " reported round " + Rounds.text(previous)
                        + " as applied before round " + Rounds.text(applied) + ", its last");
            }
            if (keptSum && previous == NOT_STARTED) {
                throw new IllegalArgumentException(member + " reported a kept sum of round " + Rounds.text(applied)
                        + " but no round before it; a kept sum is of a round applied from its sum");
            }
        }
    }

    /** How a survivor catches up to the agreed round. */
    public enum Action {
        /** It is at the agreed round. */
        NONE,
        /** It is one round behind: it applies the agreed round's sum, sent by {@link Step#from()}. */
        FORWARD,
        /** It takes the key's state as of the agreed round (value, optimizer state, update count), sent by {@link Step#from()}. */
        STATE
    }

    /**
     * What one survivor does.
     *
     * @param member the survivor
     * @param action how it catches up
     * @param from who sends it what it lacks ({@link Action#FORWARD}, {@link Action#STATE}), else null
     * @param resend whether it sends its open push again, under the new view's layout
     */
    public record Step(String member, Action action, String from, boolean resend) {
    }

    /**
     * The decision for one key.
     *
     * @param agreed the agreed round {@code A}: rounds up to it stay the old view's, later ones are the new
     *     view's; {@link #NOT_STARTED} when no survivor holds the key's init (the new view's rank 0 gives it)
     * @param steps one per report, in the reports' order
     */
    public record Decision(long agreed, List<Step> steps) {
        public Decision {
            steps = List.copyOf(steps);
        }

        /** The step of {@code member}, or null if it made no report. */
        public Step of(String member) {
            for (Step s : steps) {
                if (s.member().equals(member)) {
                    return s;
                }
            }
            return null;
        }
    }

    /**
     * Decides key {@code key}'s recovery from every survivor's report.
     *
     * @param reports one per survivor, in the new view's rank order
     * @throws IllegalArgumentException if there is no report, a survivor reports twice, or survivors applied
     *     the agreed round after different rounds (their copies went through different histories): the key
     *     cannot be recovered, and the message says why
     */
    public static Decision decide(String key, List<Report> reports) {
        if (reports.isEmpty()) {
            throw new IllegalArgumentException("no survivor reported key '" + key + "'");
        }
        Set<String> seen = new HashSet<>();
        long agreed = NOT_STARTED;
        for (Report r : reports) {
            if (!seen.add(r.member())) {
                throw new IllegalArgumentException(r.member() + " reported key '" + key + "' twice");
            }
            agreed = Math.max(agreed, r.applied());
        }
        List<Report> atAgreed = new ArrayList<>();
        List<Report> forwarders = new ArrayList<>();
        for (Report r : reports) {
            if (r.applied() == agreed && agreed != NOT_STARTED) {
                atAgreed.add(r);
                if (r.keptSum()) {
                    forwarders.add(r);
                }
            }
        }
        checkOneHistory(key, atAgreed);
        List<Step> steps = new ArrayList<>(reports.size());
        int behind = 0;
        for (Report r : reports) {
            // An open push of a round before A was part of A's history (its pusher ended that period after it).
            boolean resend = r.pushed() > agreed && r.pushed() > 0;
            if (r.applied() == agreed) {
                steps.add(new Step(r.member(), Action.NONE, null, resend));
                continue;
            }
            Report from = null;
            Action action = Action.STATE;
            if (r.applied() != NOT_STARTED && !forwarders.isEmpty() && forwarders.get(0).previous() == r.applied()) {
                action = Action.FORWARD;
                from = forwarders.get(behind % forwarders.size());
            } else {
                from = atAgreed.get(behind % atAgreed.size());
            }
            behind++;
            steps.add(new Step(r.member(), action, from.member(), resend));
        }
        return new Decision(agreed, steps);
    }

    /** Survivors that applied the agreed round from its sum all applied the same round before it. */
    private static void checkOneHistory(String key, List<Report> atAgreed) {
        long previous = NOT_STARTED;
        for (Report r : atAgreed) {
            if (r.previous() == NOT_STARTED) {
                continue;
            }
            if (previous != NOT_STARTED && previous != r.previous()) {
                throw new IllegalArgumentException("survivors applied key '" + key + "''s round " + Rounds.text(r.applied())
                        + " after different rounds (" + Rounds.text(previous) + ", " + Rounds.text(r.previous())
                        + "): their copies went through different rounds");
            }
            previous = r.previous();
        }
    }
}
