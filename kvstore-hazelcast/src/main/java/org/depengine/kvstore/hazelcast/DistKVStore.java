package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.cluster.ClusterSettings;
import org.depengine.kvstore.hazelcast.cluster.ShardedTable;
import org.depengine.kvstore.hazelcast.cluster.UpdaterClasses;
import org.depengine.kvstore.spi.AbstractKVStore;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;

/**
 * A {@code dist_sync} or {@code dist_async} store: the base class pushes the ops, this class makes
 * their remote calls through a {@link ShardedTable}; each call completes its op from Hazelcast's
 * callback, so no engine thread waits on the network.
 *
 * <p>Rounds and periods are decided at each call by the base class ({@link Rounds}); this class hands
 * them to the key's owner as they are. A worker's end of a period ({@code endOfData()}, or the
 * {@code barrier()} that ends it) tells every key's owner that this worker has no more data for it, so
 * a worker with fewer batches never holds a round up. Keys are expected to be initialised by every
 * worker at the same point relative to its barriers (as every worker runs the same program).
 */
final class DistKVStore extends AbstractKVStore {
    private final HazelcastInstance hz;
    private final boolean ownsInstance;
    private final ShardedTable table;
    private final boolean async;
    private final List<String> updaterClasses;

    DistKVStore(Engine engine, String type, KVStoreSettings settings, HazelcastInstance hz, boolean ownsInstance,
                ClusterSettings cluster) {
        super(engine, type, settings);
        this.hz = hz;
        this.ownsInstance = ownsInstance;
        this.async = HazelcastKVStoreProvider.DIST_ASYNC.equals(type);
        this.updaterClasses = cluster.updaterClasses();
        // Rank 0 reads the checkpoint (only its host needs the file); the others learn its period at open.
        Checkpoint resumed = settings.resume().filter(p -> settings.rank() == 0).map(Checkpoint::read).orElse(null);
        Integer resumePeriod = settings.resume().isEmpty() ? null : resumed == null ? 0 : resumed.period();
        this.table = new ShardedTable(hz, cluster, settings.rank(), settings.numWorkers(), async, resumePeriod);
        if (resumePeriod != null) {
            resumeAt(table.resumedPeriod(), resumed, settings.resume().get().toString());
        }
    }

    /** Only an updater the keys' owners will deserialize: {@link UpdaterClasses}. */
    @Override
    protected void checkUpdater(Updater updater) {
        UpdaterClasses.check(updater, updaterClasses);
    }

    @Override
    protected void sendInit(Key key, CallbackOnComplete done) {
        float[] state = key.stateCopy();
        complete(!key.resumed() ? table.init(key.name(), toArray(key.stored()))
                : table.initResumed(key.name(), toArray(key.stored()), state.length / key.length(), state, key.steps(),
                        key.initRound()), done);
    }

    /** Reads every key from its owners as of the end of {@code period}: index 0 of the period (the barrier before). */
    @Override
    protected List<Checkpoint.Entry> snapshot(List<Key> keys, int period) throws Exception {
        List<CompletableFuture<Checkpoint.Entry>> reads = new ArrayList<>();
        for (Key k : keys) {
            reads.add(table.snapshot(k.name(), Rounds.of(period, 0)));
        }
        List<Checkpoint.Entry> out = new ArrayList<>();
        for (CompletableFuture<Checkpoint.Entry> r : reads) {
            try {
                out.add(r.get());
            } catch (ExecutionException e) {
                throw (RuntimeException) unwrap(e.getCause());
            }
        }
        return out;
    }

    @Override
    protected void send(Key key, long round, CallbackOnComplete done) {
        complete(table.push(key.name(), round, key.merged(), updater(), "round " + Rounds.text(round)), done);
    }

    @Override
    protected boolean reportsSkippedPushes() {
        return !async;
    }

    @Override
    protected void skippedSend(Key key, long round, CallbackOnComplete done) {
        complete(table.pushSkipped(key.name(), round, "round " + Rounds.text(round)), done);
    }

    @Override
    protected void fetch(Key key, long round, CallbackOnComplete done) {
        complete(table.pull(key.name(), async ? 0 : round, "round " + Rounds.text(round), key.stored()), done);
    }

    @Override
    protected boolean endsPeriods() {
        return !async;
    }

    @Override
    protected void endPeriod(int period, CallbackOnComplete done) {
        complete(table.endOfData(period), done);
    }

    @Override
    protected void doBarrier() {
        try {
            table.barrier().get();
        } catch (ExecutionException e) {
            throw (RuntimeException) unwrap(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank(), "interrupted in barrier", e);
        }
    }

    @Override
    protected void closeStore() {
        table.close();
        if (ownsInstance) {
            hz.shutdown();
        }
    }

    private static void complete(CompletableFuture<?> call, CallbackOnComplete done) {
        call.whenComplete((v, err) -> {
            if (err != null) {
                done.fail(unwrap(err));
            } else {
                done.complete();
            }
        });
    }

    private static Throwable unwrap(Throwable err) {
        while (err instanceof java.util.concurrent.CompletionException && err.getCause() != null) {
            err = err.getCause();
        }
        return err;
    }

    private static float[] toArray(FloatBuffer b) {
        float[] a = new float[b.remaining()];
        b.get(a);
        return a;
    }
}
