package org.depengine.core.tracker;

/**
 * What a recorded graph fixed, at capture, about one of its ops (see {@link OpBlock#linkReplay}): which
 * of its accesses skip the variable's queue, and the ops of the same replay it waits for and lets go.
 * Immutable and shared by every replay of the graph.
 *
 * <p>The rule (design in {@code docs/design.md}): per variable, the graph's accesses up to and
 * including its first write, its last write and the reads after that are registered on the variable's
 * queue; the accesses between the first and the last write are not, and are ordered by edges between
 * the graph's ops instead, as are the registered accesses that must wait for them.
 */
public final class ReplayLinks {
    final boolean[] skipped;   // by access: the op's reads, then its writes; true if not registered
    final int registered;      // accesses registered on their variables' queues
    final int preds;           // ops of the same replay this op waits for
    final int[] successors;    // indexes, in the replay, of the ops that wait for this one
    final boolean guarded;     // whether the op has a push guard (see OpBlock#linkReplay)

    /**
     * @param skipped per access (reads, then writes, as in the op's definition): true if the access is
     *     not registered on its variable's queue
     * @param preds how many ops of the same replay the op waits for (distinct)
     * @param successors the indexes of the ops of the same replay that wait for it (distinct)
     */
    public ReplayLinks(boolean[] skipped, int preds, int[] successors) {
        this.skipped = skipped;
        int n = 0;
        for (boolean s : skipped) {
            if (!s) {
                n++;
            }
        }
        this.registered = n;
        this.preds = preds;
        this.successors = successors;
        // An op with no registered access and some predecessors needs no guard: every registration of the
        // replay is done before its first guard drops, and nothing of the replay starts before that, so
        // its last predecessor's release is what dispatches it.
        this.guarded = registered > 0 || preds == 0;
    }

    /** Whether the op holds a push guard, dropped by the replaying thread ({@link OpBlock#dropGuard}). */
    public boolean guarded() {
        return guarded;
    }

    /** The indexes, in the replay, of the ops that wait for this one (shared array: do not modify). */
    public int[] successors() {
        return successors;
    }

    /** Whether access {@code i} (reads, then writes) is not registered on its variable's queue. */
    public boolean skipped(int i) {
        return skipped[i];
    }
}
