package org.depengine.kvstore.hazelcast.peer;

import java.util.concurrent.atomic.LongAdder;

/** The data transport's counts for the store's statistics: striped adders, off every round's contended state. */
public final class PeerStats {
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder roundsApplied = new LongAdder();
    private final LongAdder latencyCount = new LongAdder();
    private final LongAdder latencyNanos = new LongAdder();
    private final LongAdder lost = new LongAdder();

    void sent(long bytes) {
        bytesSent.add(bytes);
    }

    void received(long bytes) {
        bytesReceived.add(bytes);
    }

    void applied() {
        roundsApplied.increment();
    }

    void round(long nanos) {
        latencyCount.increment();
        latencyNanos.add(nanos);
    }

    void lostRank() {
        lost.increment();
    }

    /** Payload bytes (floats) this worker sent: pushes, sums and inits; frame headers excluded. */
    public long bytesSent() {
        return bytesSent.sum();
    }

    /** Payload bytes this worker received, as {@link #bytesSent()}. */
    public long bytesReceived() {
        return bytesReceived.sum();
    }

    /** Rounds of any key applied to this worker's copy. */
    public long roundsApplied() {
        return roundsApplied.sum();
    }

    /** Pushes whose round completed here, from the push's send to its round applied: the count. */
    public long roundLatencyCount() {
        return latencyCount.sum();
    }

    /** The total of those latencies, in nanoseconds. */
    public long roundLatencyNanos() {
        return latencyNanos.sum();
    }

    /** Other ranks seen lost. */
    public long lostRanks() {
        return lost.sum();
    }
}
