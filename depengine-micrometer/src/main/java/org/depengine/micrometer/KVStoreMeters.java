package org.depengine.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreStats;

/**
 * Binds a store's {@link KVStore#stats()} to Micrometer, as {@code depengine.kvstore.*}. Every meter is
 * tagged {@code kvstore} (the store's type) and {@code rank} (this worker's), and with the tags given to
 * the constructor:
 * <ul>
 *   <li>counters {@value #PUSHES}, {@value #PULLS} (ops finished), {@value #FAILED} (of those, failed),
 *   {@value #ROUNDS} (rounds completed, once per key), {@value #SENT} and {@value #RECEIVED} (payload bytes),
 *   {@value #LOST} (workers or members lost), {@value #MEMBERSHIP} (membership changes);</li>
 *   <li>the timer {@value #LATENCY}: from this worker's push of a round leaving to the round's result
 *   being available here;</li>
 *   <li>the gauge {@value #PENDING_READS}: pulls waiting for their round now.</li>
 * </ul>
 * Each value is read from the store when the registry reads the meter: nothing is added to the store's
 * calls. Thread-safe; {@link #close()} removes the meters it registered.
 */
public final class KVStoreMeters implements MeterBinder, AutoCloseable {
    /** Counter: push ops finished. */
    public static final String PUSHES = "depengine.kvstore.pushes";
    /** Counter: pull ops finished. */
    public static final String PULLS = "depengine.kvstore.pulls";
    /** Counter: push and pull ops that failed. */
    public static final String FAILED = "depengine.kvstore.failed";
    /** Counter: rounds completed. */
    public static final String ROUNDS = "depengine.kvstore.rounds";
    /** Counter: payload bytes sent. */
    public static final String SENT = "depengine.kvstore.sent";
    /** Counter: payload bytes received. */
    public static final String RECEIVED = "depengine.kvstore.received";
    /** Timer: round latency. */
    public static final String LATENCY = "depengine.kvstore.round.latency";
    /** Gauge: pulls waiting for their round. */
    public static final String PENDING_READS = "depengine.kvstore.reads.pending";
    /** Counter: workers or members lost. */
    public static final String LOST = "depengine.kvstore.workers.lost";
    /** Counter: membership changes. */
    public static final String MEMBERSHIP = "depengine.kvstore.membership.changes";

    private final KVStoreStats stats;
    private final Tags tags;
    private final BoundMeters meters;

    /**
     * Meters for {@code store}.
     *
     * @param store the store
     */
    public KVStoreMeters(KVStore store) {
        this(store, Tags.empty());
    }

    /**
     * Meters for {@code store}, with more tags (to tell apart two stores of one type and rank in one registry).
     *
     * @param store the store
     * @param tags more tags for every meter
     */
    public KVStoreMeters(KVStore store, Iterable<Tag> tags) {
        Objects.requireNonNull(store, "store");
        this.stats = store.stats();
        this.tags = Tags.of(tags).and("kvstore", store.type()).and("rank", Integer.toString(store.rank()));
        this.meters = new BoundMeters("KVStoreMeters of store '" + store.type() + "' rank " + store.rank());
    }

    /**
     * Registers the meters with {@code registry}.
     *
     * @throws IllegalStateException if this binder is closed, or the registry already has one of these
     *     meters with the same tags
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        meters.checkOpen();
        KVStoreStats s = stats;
        meters.counter(registry, PUSHES, tags, s, KVStoreStats::pushes, null, "Push ops of this worker that finished");
        meters.counter(registry, PULLS, tags, s, KVStoreStats::pulls, null, "Pull ops of this worker that finished");
        meters.counter(registry, FAILED, tags, s, KVStoreStats::failedOps, null, "Push and pull ops that failed");
        meters.counter(registry, ROUNDS, tags, s, KVStoreStats::roundsCompleted, null,
                "Rounds this worker has seen complete, once per key");
        meters.counter(registry, SENT, tags, s, KVStoreStats::bytesSent, "bytes", "Payload bytes put on the network");
        meters.counter(registry, RECEIVED, tags, s, KVStoreStats::bytesReceived, "bytes",
                "Payload bytes taken off the network");
        meters.timer(registry, LATENCY, tags, s, KVStoreStats::roundLatencyCount, KVStoreStats::roundLatencyNanos,
                "From this worker's push of a round leaving to the round's result being available here");
        meters.gauge(registry, PENDING_READS, tags, s, KVStoreStats::pendingReads, null, "Pulls waiting for their round");
        meters.counter(registry, LOST, tags, s, KVStoreStats::workersLost, null,
                "Losses of other workers or members this store has seen");
        meters.counter(registry, MEMBERSHIP, tags, s, KVStoreStats::membershipChanges, null,
                "Membership changes this store has seen (losses and joins)");
    }

    /** Removes every meter registered. Idempotent. */
    @Override
    public void close() {
        meters.close();
    }
}
