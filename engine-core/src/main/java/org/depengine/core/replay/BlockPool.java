package org.depengine.core.replay;

import java.util.concurrent.atomic.AtomicReferenceArray;
import org.depengine.core.tracker.OpBlock;
import org.depengine.core.tracker.OpDevice;

/**
 * A graph's op blocks kept for later replays. A replay's ops are a set of {@link OpBlock}s, one per
 * op, indexed as in the graph (the array is also each block's peers, through its slot). The pool keeps
 * up to {@link #KEPT_SETS} sets of earlier replays; a replay takes one for itself alone ({@link #take})
 * only if every block of it is retired ({@link OpBlock#isRetired}: finished, and its runner done with
 * it), and reuses its blocks; else it makes a new set and offers it back afterwards ({@link #giveBack}).
 * So a replay never waits for an older one to free its blocks, an op of replay k+1 still waits only for
 * the ops it conflicts with, and replays allocate no block while no more than {@code KEPT_SETS} of them
 * are in flight. Thread-safe: a set is in one slot, or taken by one replay, never both.
 */
final class BlockPool {
    /** How many block sets the pool keeps for later replays. */
    static final int KEPT_SETS = 4;

    private final AtomicReferenceArray<OpBlock[]> kept = new AtomicReferenceArray<>(KEPT_SETS);

    /**
     * A kept block set whose every block is retired, now the caller's alone; or null if there is none
     * (the sets still in use stay kept).
     */
    OpBlock[] take() {
        for (int i = 0; i < KEPT_SETS; i++) {
            OpBlock[] s = kept.getAndSet(i, null);
            if (s == null) {
                continue;
            }
            if (retired(s)) {
                return s;
            }
            kept.compareAndSet(i, null, s); // still in use: kept (dropped if a set was given back meanwhile)
        }
        return null;
    }

    /** Offers the block set of a replay just pushed to later replays; dropped if all slots are taken. */
    void giveBack(OpBlock[] set) {
        for (int i = 0; i < KEPT_SETS; i++) {
            if (kept.compareAndSet(i, null, set)) {
                return;
            }
        }
    }

    private static boolean retired(OpBlock[] set) {
        for (int i = set.length - 1; i >= 0; i--) { // the last ops are the likeliest to be still running
            if (!set[i].isRetired()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a retired block may run the same op again, on {@code device}: not if its device changed,
     * nor if its completion was ever handed out (an async op's callback, a launched op's device report:
     * a late second completion must only ever reach the run it was handed for, where it is refused), nor
     * if it took part in release at launch (other ops' and variables' fence lists may still name it).
     */
    static boolean reusable(OpBlock old, OpDevice device) {
        return old.device() == device && old.def().isSync() && !old.wasLaunched() && old.fence() == null;
    }
}
