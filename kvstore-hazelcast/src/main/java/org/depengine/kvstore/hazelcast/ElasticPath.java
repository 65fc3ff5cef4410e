package org.depengine.kvstore.hazelcast;

import java.util.List;
import org.depengine.kvstore.hazelcast.peer.ViewListener;

/**
 * The data path's side of an elastic job's view changes, as {@link ElasticJob} drives them: each view the
 * membership installs is handed over ({@link #changeView}), the path carries every key's rounds over to it and
 * says when it has ({@link ViewListener#installed}), and the store, once it moved to the view and told its
 * listeners, lets the view's rounds be seen ({@link #released}). {@link WorkerPath}: the workers' own exchange
 * recovers the rounds ({@code peer.Recovery}); {@link ServerPath}: the keys' owners complete the open rounds
 * without the workers dropped ({@code client.ElasticRounds}).
 *
 * <p>{@link ElasticJob} calls {@link #reach} and {@link #changeView} on the store's event thread, in epoch
 * order; the others from any thread.
 */
interface ElasticPath {
    /** Bounds each view change by {@code ms}: one not installed by then fails the ops that wait for it. */
    void recoveryTimeout(long ms);

    /** Sets who is told each view this path installs; the listener hands the call off and never blocks. */
    void onViewInstalled(ViewListener l);

    /**
     * Before a view is handed over: makes sure this worker can reach the workers at {@code places} (their ranks
     * in the job's first view, or joiners' registrations), each bounded by {@code timeoutMs}.
     *
     * @throws RuntimeException if one cannot be reached in time
     */
    void reach(List<Integer> places, long timeoutMs);

    /**
     * The membership installed view {@code epoch}, of the workers at {@code places} in rank order: the path
     * carries the rounds of every key over to it, and tells its listener once it has.
     */
    void changeView(int epoch, int[] places);

    /**
     * The store has moved to view {@code epoch} and told its listeners: the rounds summed over that view may be
     * seen here (none is before, so no pull sees a round of a view its listeners were not told of).
     */
    void released(int epoch);

    /** Every op that waits, and every later one, fails with {@code why} (the job cannot go on for this worker). */
    void failAll(String why);
}
