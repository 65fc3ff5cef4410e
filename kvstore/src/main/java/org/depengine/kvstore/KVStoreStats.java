package org.depengine.kvstore;

/**
 * A live, thread-safe view of one worker's store ({@link KVStore#stats()}), cheap to read at any time from
 * any thread (a monitoring scrape), never blocking a round. Every count is monotonic for the store's life.
 */
public interface KVStoreStats {
    /**
     * Push ops of this worker that finished (success, failure or skip).
     *
     * @return the number of pushes finished
     */
    long pushes();

    /**
     * Pull ops of this worker that finished (success, failure or skip).
     *
     * @return the number of pulls finished
     */
    long pulls();

    /**
     * Of the pushes and pulls finished, the ones that failed or were skipped because a producer failed.
     *
     * @return the number of failed ops
     */
    long failedOps();

    /**
     * Rounds of any key this worker has seen complete, each round counted once per key.
     *
     * @return the number of rounds completed
     */
    long roundsCompleted();

    /**
     * Payload bytes this worker's store put on the network: the floats of pushes, sums and inits, transport
     * framing and headers excluded; 0 for a store that moves nothing over a network ({@code local}).
     *
     * @return the bytes sent
     */
    long bytesSent();

    /**
     * Payload bytes this worker's store took off the network (as {@link #bytesSent()}).
     *
     * @return the bytes received
     */
    long bytesReceived();

    /**
     * The number of round latencies summed in {@link #roundLatencyNanos()}; a round's latency runs from
     * this worker's push of it leaving to the round's result being available to this worker.
     *
     * @return the count
     */
    long roundLatencyCount();

    /**
     * The sum of the round latencies counted by {@link #roundLatencyCount()}.
     *
     * @return the total, in nanoseconds
     */
    long roundLatencyNanos();

    /**
     * Pulls waiting for their round now.
     *
     * @return the number of pending reads
     */
    int pendingReads();

    /**
     * Losses of other workers (or members) this store has seen.
     *
     * @return the number of losses
     */
    long workersLost();

    /**
     * Membership changes this store has seen: losses (and, with elastic training, joins).
     *
     * @return the number of changes
     */
    long membershipChanges();
}
