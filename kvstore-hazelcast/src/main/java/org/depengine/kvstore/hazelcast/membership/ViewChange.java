package org.depengine.kvstore.hazelcast.membership;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.depengine.kvstore.hazelcast.protocol.View;

/**
 * One view change as a worker of an elastic job applies it ({@link ElasticMembership}): the view installed,
 * the one before, who left, and this worker's place in the new view. The membership side of the design's
 * {@code MembershipChange} (section 6): who left; who joined is the view's members not in {@code previous}.
 *
 * @param view the view installed (epoch {@code previous.epoch() + 1})
 * @param previous the view this worker had applied before (a joiner's first: the view itself)
 * @param left the members of {@code previous} that are not in {@code view}, in their rank order there
 * @param rank this worker's rank in {@code view}
 * @param paused whether {@code view} has fewer than {@code minWorkers} members: no round of it may start,
 *     and the job fails unless workers join within {@code minWorkersWaitMs}
 */
public record ViewChange(View view, View previous, List<Departure> left, int rank, boolean paused) {
    /**
     * A worker that left the job.
     *
     * @param rank its rank in the view it left
     * @param member its member id (its endpoint UUID)
     * @param why how it was seen to leave (naming its address when a member saw it), or the cause the new
     *     view gives if this worker had not seen it itself
     * @param detectedAt when this worker learned of the loss: its own detection, or the view that told it
     */
    public record Departure(int rank, String member, String why, Instant detectedAt) {
        /** Checks that no field is null. */
        public Departure {
            Objects.requireNonNull(member, "member");
            Objects.requireNonNull(why, "why");
            Objects.requireNonNull(detectedAt, "detectedAt");
        }
    }

    /** Copies the list; checks that no field is null. */
    public ViewChange {
        Objects.requireNonNull(view, "view");
        Objects.requireNonNull(previous, "previous");
        left = List.copyOf(left);
    }

    /** The epoch of the view installed. */
    public int epoch() {
        return view.epoch();
    }

    /** The number of workers of the view installed. */
    public int numWorkers() {
        return view.size();
    }

    /** This worker's rank in the view before. */
    public int previousRank() {
        return previous.rankOf(view.members().get(rank));
    }
}
