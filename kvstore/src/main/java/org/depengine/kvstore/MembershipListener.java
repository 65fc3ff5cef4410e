package org.depengine.kvstore;

/**
 * Told of each change of an elastic store's membership (workers lost or admitted): registered with
 * {@link KVStore#onMembershipChange}. A store whose membership cannot change (a {@code local} store, a
 * distributed store that is not elastic) never calls it.
 *
 * <h2>The contract of the calls</h2>
 * <ul>
 *   <li><b>Once per view moved to, in epoch order</b>: one call for each view this worker moves to after the
 *   registration, with {@link MembershipChange#epoch()} increasing from call to call. A view that a later one
 *   replaced before this worker moved to it (a second loss during the first one's recovery) gets no call of
 *   its own: the later call lists its departures too. Calls never overlap: the next one starts after this
 *   one has returned.</li>
 *   <li><b>On the store's event thread</b>: a thread of the store, never the thread of a caller of the
 *   store's methods, never an engine worker running ops. So the listener must not wait on the store
 *   ({@link KVStore#barrier()}, {@link KVStore#close()}, or a wait for a pull's out): the rounds of the
 *   new view do not complete on this worker until it returns, which would deadlock. It may read the store
 *   and hand work to the training loop; keep it short.</li>
 *   <li><b>After the store moved to the new view</b>: inside the call, {@link KVStore#rank()} and
 *   {@link KVStore#numWorkers()} already answer {@link MembershipChange#rank()} and
 *   {@link MembershipChange#numWorkers()}, and <b>before any round of the new view completes on this
 *   worker</b> (so no pull of this worker has seen a round summed over the new view yet).</li>
 *   <li><b>Failures stay here</b>: an exception the listener throws is logged (SLF4J, naming the
 *   listener's class and the epoch) and breaks neither the store nor the calls of the other listeners,
 *   which are called in their registration order all the same.</li>
 * </ul>
 *
 * <p>A training loop either re-splits its data here (sets the share it reads next, from
 * {@link MembershipChange#rank()} of {@link MembershipChange#numWorkers()}), or simply reads
 * {@code rank()} and {@code numWorkers()} at the top of each step; {@link MembershipChange#firstRoundOf()}
 * tells which of its queued steps were summed over which workers.
 */
@FunctionalInterface
public interface MembershipListener {
    /**
     * Called once for each membership change this worker applies (see the interface's contract).
     *
     * @param change the change, never null
     */
    void changed(MembershipChange change);
}
