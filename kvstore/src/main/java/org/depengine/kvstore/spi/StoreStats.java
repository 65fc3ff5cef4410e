package org.depengine.kvstore.spi;

import java.util.concurrent.atomic.LongAdder;
import org.depengine.kvstore.KVStoreStats;

/**
 * The counts behind a store's {@link KVStoreStats}: striped adders, so counting stays off the rounds'
 * contended state. {@link AbstractKVStore} counts the ops; an implementation adds what only it sees (the
 * bytes on its network, its rounds, their latency, the losses). Thread-safe.
 */
public final class StoreStats implements KVStoreStats {
    private final LongAdder pushes = new LongAdder();
    private final LongAdder pulls = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder rounds = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder latencyCount = new LongAdder();
    private final LongAdder latencyNanos = new LongAdder();
    private final LongAdder pending = new LongAdder();
    private final LongAdder lost = new LongAdder();
    private final LongAdder changes = new LongAdder();

    /** For {@link AbstractKVStore}, and tests of an implementation's parts. */
    public StoreStats() {
    }

    /** A push op finished; {@code ok} false if it failed or was skipped. */
    public void pushed(boolean ok) {
        pushes.increment();
        if (!ok) {
            failed.increment();
        }
    }

    /** A pull op finished; {@code ok} false if it failed or was skipped. */
    public void pulled(boolean ok) {
        pulls.increment();
        if (!ok) {
            failed.increment();
        }
    }

    /** A round of a key completed, seen by this worker. */
    public void roundCompleted() {
        rounds.increment();
    }

    /** {@code bytes} of payload sent. */
    public void sent(long bytes) {
        sent.add(bytes);
    }

    /** {@code bytes} of payload received. */
    public void received(long bytes) {
        received.add(bytes);
    }

    /** A round's latency, from this worker's push to its result here. */
    public void roundLatency(long nanos) {
        latencyCount.increment();
        latencyNanos.add(nanos);
    }

    /** A pull starts waiting ({@code +1}) or stops ({@code -1}). */
    public void pendingRead(int delta) {
        pending.add(delta);
    }

    /** Another worker (or member) was lost: a loss and a membership change. */
    public void workerLost() {
        lost.increment();
        changes.increment();
    }

    @Override
    public long pushes() {
        return pushes.sum();
    }

    @Override
    public long pulls() {
        return pulls.sum();
    }

    @Override
    public long failedOps() {
        return failed.sum();
    }

    @Override
    public long roundsCompleted() {
        return rounds.sum();
    }

    @Override
    public long bytesSent() {
        return sent.sum();
    }

    @Override
    public long bytesReceived() {
        return received.sum();
    }

    @Override
    public long roundLatencyCount() {
        return latencyCount.sum();
    }

    @Override
    public long roundLatencyNanos() {
        return latencyNanos.sum();
    }

    @Override
    public int pendingReads() {
        return (int) Math.max(0, pending.sum());
    }

    @Override
    public long workersLost() {
        return lost.sum();
    }

    @Override
    public long membershipChanges() {
        return changes.sum();
    }

    @Override
    public String toString() {
        return "KVStoreStats(pushes " + pushes() + ", pulls " + pulls() + ", failed " + failedOps() + ", rounds "
                + roundsCompleted() + ", bytes sent " + bytesSent() + ", received " + bytesReceived() + ", pending reads "
                + pendingReads() + ", workers lost " + workersLost() + ")";
    }
}
