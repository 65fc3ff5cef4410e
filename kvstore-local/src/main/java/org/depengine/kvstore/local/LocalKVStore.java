package org.depengine.kvstore.local;

import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.spi.AbstractKVStore;
import org.depengine.kvstore.spi.Key;

/**
 * The {@code local} store: what a multi-device training loop does by hand, as a KVStore. A push sums
 * the devices' values on the host (in list order), then runs the updater on the host over the stored
 * value ({@code stored = merged} without one); a pull copies the stored value to every out. Rank 0 of
 * 1 worker.
 *
 * <p>The updater runs in the push's {@code send} op, a {@link FnProperty#CPU_PRIORITIZED} op reading
 * the key's sum and writing its stored value, so a pull (whose copies read the stored value) sees
 * every earlier push. A pull needs no fetch: the stored value is already here.
 *
 * <p>{@link #barrier()} returns at once, pushing only the op that starts the keys' next period: with
 * one worker there is nobody to meet, and the order of the calls before and after it on a key already
 * comes from the key's variables (every op of a key writes or reads its stored value), so nothing needs
 * fencing. {@link #endOfData()} only
 * refuses pushes until the next barrier. Thread-safe.
 */
final class LocalKVStore extends AbstractKVStore {

    LocalKVStore(Engine engine, KVStoreSettings settings) {
        super(engine, LocalKVStoreProvider.TYPE, settings);
        settings.resume().ifPresent(path -> {
            Checkpoint c = Checkpoint.read(path);
            resumeAt(c.period(), c, path.toString());
        });
    }

    @Override
    public int rank() {
        return 0;
    }

    @Override
    public int numWorkers() {
        return 1;
    }

    @Override
    protected void sendInit(Key key, CallbackOnComplete done) {
        done.complete(); // the init's copy already put the value in stored
    }

    @Override
    protected void send(Key key, long round, CallbackOnComplete done) {
        long t0 = System.nanoTime();
        applyUpdater(key);
        stats().roundCompleted(); // a round of one worker completes here, in its push
        stats().roundLatency(System.nanoTime() - t0);
        done.complete();
    }

    @Override
    protected void fetch(Key key, long round, CallbackOnComplete done) {
        done.complete(); // not called: pullFetches() is false
    }

    @Override
    protected boolean pullFetches() {
        return false;
    }

    @Override
    protected FnProperty storeOpProperty() {
        return FnProperty.CPU_PRIORITIZED; // the updater computes on the host: not an inline ASYNC op
    }

    @Override
    protected void doBarrier() {
        // one worker: nobody to wait for, and ordering comes from the keys' variables
    }

    @Override
    protected void closeStore() {
        // nothing beyond the base class's variables
    }
}
