package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.cluster.ClusterSettings;
import org.depengine.kvstore.hazelcast.cluster.ShardedTable;
import org.depengine.kvstore.hazelcast.state.Rounds;
import org.depengine.kvstore.spi.AbstractKVStore;
import org.depengine.kvstore.spi.Key;

/**
 * A {@code dist_sync} or {@code dist_async} store: the base class pushes the ops, this class makes
 * their remote calls through a {@link ShardedTable}; each call completes its op from Hazelcast's
 * callback, so no engine thread waits on the network.
 *
 * <p>Periods: each {@link #barrier()} starts a new period of sync rounds. At a barrier this worker
 * tells every key's owner (through an op ordered after its pushes) that it has no more data for the
 * period ending, so a worker with fewer batches never holds a round up; {@link #endOfData()} says the
 * same earlier. Keys are expected to be initialised by every worker at the same point relative to its
 * barriers (as every worker runs the same program).
 */
final class DistKVStore extends AbstractKVStore {
    private final HazelcastInstance hz;
    private final boolean ownsInstance;
    private final ShardedTable table;
    private final boolean async;
    /** Per key: local push count at each barrier → the period that starts after it. */
    private final Map<String, TreeMap<Long, Integer>> periodStarts = new ConcurrentHashMap<>();
    private volatile int period;

    DistKVStore(Engine engine, String type, KVStoreSettings settings, HazelcastInstance hz, boolean ownsInstance,
                ClusterSettings cluster) {
        super(engine, type, settings);
        this.hz = hz;
        this.ownsInstance = ownsInstance;
        this.async = HazelcastKVStoreProvider.DIST_ASYNC.equals(type);
        this.table = new ShardedTable(hz, cluster, settings.rank(), settings.numWorkers(), async);
    }

    @Override
    protected void sendInit(Key key, CallbackOnComplete done) {
        complete(table.init(key.name(), toArray(key.stored())), done);
    }

    @Override
    protected void send(Key key, long round, CallbackOnComplete done) {
        long r = async ? round : pushRound(key.name(), round);
        complete(table.push(key.name(), r, toArray(key.merged()), updater(), "round " + round), done);
    }

    @Override
    protected boolean reportsSkippedPushes() {
        return !async;
    }

    @Override
    protected void skippedSend(Key key, long round, CallbackOnComplete done) {
        complete(table.pushSkipped(key.name(), pushRound(key.name(), round), "round " + round), done);
    }

    @Override
    protected void fetch(Key key, long round, CallbackOnComplete done) {
        long r = async ? 0 : pullRound(key.name(), round);
        table.pull(key.name(), r, "round " + round).whenComplete((value, err) -> {
            if (err != null) {
                done.fail(unwrap(err));
            } else {
                key.stored().put(value);
                done.complete();
            }
        });
    }

    @Override
    protected void doBarrier() {
        int ending = period;
        int next = ending + 1;
        for (String name : keys()) {
            starts(name).put(key(name).rounds(), next);
        }
        pushEndOfPeriod(ending, "kvstore barrier: end of period " + ending + " (rank " + rank() + ")");
        period = next;
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
    protected void onEndOfData() {
        pushEndOfPeriod(period, "kvstore end of data: period " + period + " (rank " + rank() + ")");
    }

    /** An op after this worker's pushes of every key (it writes their variables) that ends its part in {@code p}. */
    private void pushEndOfPeriod(int p, String name) {
        if (async || keys().isEmpty()) {
            return;
        }
        List<VarHandle> vars = new ArrayList<>();
        for (String k : keys()) {
            vars.add(key(k).storeVar());
        }
        engine().pushAsync((rc, done) -> complete(table.endOfData(p), done), Context.cpu(), List.of(), vars,
                FnProperty.ASYNC, 0, name);
    }

    @Override
    protected void closeStore() {
        table.close();
        if (ownsInstance) {
            hz.shutdown();
        }
    }

    private TreeMap<Long, Integer> starts(String key) {
        return periodStarts.computeIfAbsent(key, k -> {
            TreeMap<Long, Integer> m = new TreeMap<>();
            m.put(0L, 0);
            return m;
        });
    }

    /** The sync round of this worker's {@code round}-th push (from 1) of {@code key}. */
    private long pushRound(String key, long round) {
        TreeMap<Long, Integer> m = starts(key);
        synchronized (m) {
            Map.Entry<Long, Integer> e = m.floorEntry(round - 1); // the period whose start is before this push
            return Rounds.of(e.getValue(), round - e.getKey());
        }
    }

    /** The sync round a pull after this worker's {@code round}-th push waits for (index 0: the period before done). */
    private long pullRound(String key, long round) {
        TreeMap<Long, Integer> m = starts(key);
        synchronized (m) {
            Map.Entry<Long, Integer> e = m.floorEntry(round);
            return Rounds.of(e.getValue(), round - e.getKey());
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
