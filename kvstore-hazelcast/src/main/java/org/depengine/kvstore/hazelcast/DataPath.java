package org.depengine.kvstore.hazelcast;

import java.util.List;
import org.depengine.api.CallbackOnComplete;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.spi.Key;

/**
 * Where a distributed store's keys are summed and updated: the calls {@link DistKVStore}'s hooks make,
 * each asynchronous (it calls {@code done} exactly once, from any thread, and never blocks the engine
 * thread it is called on). {@link ServerPath}: the keys live on Hazelcast members, which sum and run the
 * updater ({@code updateOn=server}, {@code dist_async}); {@link WorkerPath}: the store only sums, over the
 * workers' own data transport, and every worker runs the updater ({@code updateOn=worker}).
 */
interface DataPath extends AutoCloseable {
    /** Round 0 of a key: {@link Key#stored()} holds this worker's init value (or the checkpoint's, resumed). */
    void init(Key key, CallbackOnComplete done);

    /** This worker's push of {@code round}: {@link Key#merged()}, unchanged until {@code done}. */
    void send(Key key, long round, Updater updater, CallbackOnComplete done);

    /** This worker's push of {@code round} was skipped (a failed producer): the round completes without it. */
    void skipped(Key key, long round, CallbackOnComplete done);

    /** Fills {@link Key#stored()} with the key's value as of {@code round}. */
    void fetch(Key key, long round, CallbackOnComplete done);

    /** This worker has no more data in {@code period}: that period's rounds complete without it. */
    void endPeriod(int period, CallbackOnComplete done);

    /**
     * Every key's value, updater state and update count as of the end of {@code period}, for a checkpoint;
     * on the caller's thread, after every op of this worker on the keys. Null: the keys are here, and the
     * store reads them after the ops this call pushed to bring them to the period's end.
     */
    List<Checkpoint.Entry> snapshot(List<Key> keys, int period) throws Exception;

    /** Whether a pull's fetch is a call (else the key's stored value is current once its ops ran). */
    boolean pullFetches();

    /** This worker's part in leaving the job normally, before the membership's; bounded, may throw. */
    void leave() throws Exception;

    /** Releases the path's resources; idempotent, never throws for a path that is already broken. */
    @Override
    void close();
}
