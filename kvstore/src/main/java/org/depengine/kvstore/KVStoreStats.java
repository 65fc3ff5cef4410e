package org.depengine.kvstore;

/**
 * A live view of one worker's store ({@link KVStore#stats()}): thread-safe, cheap to read at any time from
 * any thread (a metrics scrape), never blocking a round. Counters are monotonic for the store's life.
 */
public interface KVStoreStats {
    /** Push ops of this worker that finished: completed, failed, or skipped because a producer failed. */
    long pushes();

    /** Pull ops of this worker that finished, as {@link #pushes()}. */
    long pulls();

    /** Of the push and pull ops that finished, those that failed or were skipped. */
    long failedOps();

    /** Rounds of any key this worker has seen complete, each counted once per key. */
    long roundsCompleted();

    /**
     * Payload bytes this worker's store put on the network: the floats of pushes, sums and inits (transport
     * framing and headers excluded). 0 for {@code local}.
     */
    long bytesSent();

    /** Payload bytes this worker's store took off the network, as {@link #bytesSent()}. 0 for {@code local}. */
    long bytesReceived();

    /** The rounds whose latency is in {@link #roundLatencyNanos()}: pushes of this worker whose round's result it has. */
    long roundLatencyCount();

    /**
     * The total latency of those rounds, in nanoseconds: from this worker's push of the round leaving to the
     * round's result being available to this worker. With {@link #roundLatencyCount()}, a function timer.
     */
    long roundLatencyNanos();

    /** Pulls waiting for their round now. */
    int pendingReads();

    /** Losses of other workers (or members) this store has seen. */
    long workersLost();

    /** Membership changes this store has seen: losses (and, with elastic training, joins). */
    long membershipChanges();
}
