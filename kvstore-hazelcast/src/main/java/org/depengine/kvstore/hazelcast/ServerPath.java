package org.depengine.kvstore.hazelcast;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.depengine.api.CallbackOnComplete;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.client.RoundClient;
import org.depengine.kvstore.hazelcast.peer.ViewListener;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.kvstore.spi.StoreStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code updateOn=server} and {@code dist_async}: every key lives in the job's Hazelcast map, each chunk on
 * the member that owns its partition, with {@code backups} synchronous copies; pushes are entry processors
 * there, which sum each round in rank order and run the updater ({@link RoundClient}).
 *
 * <p>In an elastic job a view is carried over by the keys' owners: told of the workers it drops, they complete
 * the open rounds without them ({@link RoundClient#changeView}). Nothing moves between workers: the values and
 * the optimizer state are on the members, with their backups. The view's listener is told, per key, the last
 * round a dropped worker gave data to ({@code dist_sync}), or this worker's last push before the change
 * ({@code dist_async}, whose rounds are not summed).
 */
final class ServerPath implements DataPath, ElasticPath {
    private static final Logger LOG = LoggerFactory.getLogger(ServerPath.class);

    private final RoundClient rounds;
    private final boolean async;
    private final StoreStats stats;
    /** This worker's rank in the job's first view: its slot in every round, whatever its rank in later views. */
    private final int place;
    private volatile ViewListener listener;
    /** Per key: the round of this worker's last push and when it left, for the round's latency (guarded by the key's ops). */
    private final Map<String, long[]> lastPush = new ConcurrentHashMap<>();
    /** Per key: the latest round this worker has seen complete (a pull's), so each counts once. */
    private final Map<String, Long> seen = new ConcurrentHashMap<>();

    ServerPath(RoundClient rounds, boolean async, int place, StoreStats stats) {
        this.rounds = rounds;
        this.async = async;
        this.place = place;
        this.stats = stats;
    }

    @Override
    public void init(Key key, CallbackOnComplete done) {
        float[] state = key.stateCopy();
        complete(!key.resumed() ? rounds.init(key.name(), toArray(key.stored()))
                : rounds.initResumed(key.name(), toArray(key.stored()), state.length / key.length(), state, key.steps(),
                        key.initRound()), done);
    }

    @Override
    public void send(Key key, long round, Updater updater, CallbackOnComplete done) {
        lastPush.put(key.name(), new long[] {round, System.nanoTime()});
        stats.sent((long) key.length() * Float.BYTES);
        complete(rounds.push(key.name(), round, key.merged(), updater, "round " + Rounds.text(round)), done);
    }

    @Override
    public void skipped(Key key, long round, CallbackOnComplete done) {
        complete(rounds.pushSkipped(key.name(), round, "round " + Rounds.text(round)), done);
    }

    @Override
    public void fetch(Key key, long round, CallbackOnComplete done) {
        complete(rounds.pull(key.name(), async ? 0 : round, "round " + Rounds.text(round), key.stored())
                .thenRun(() -> pulled(key, round)), done);
    }

    /** A pull of {@code round} has its value: the bytes, the round (once), and this worker's push's latency. */
    private void pulled(Key key, long round) {
        stats.received((long) key.length() * Float.BYTES);
        Long before = seen.get(key.name());
        if (round > 0 && (before == null || round > before)) {
            seen.put(key.name(), round);
            stats.roundCompleted();
            long[] push = lastPush.get(key.name());
            if (push != null && push[0] == round) {
                stats.roundLatency(System.nanoTime() - push[1]);
            }
        }
    }

    @Override
    public void endPeriod(int period, CallbackOnComplete done) {
        complete(rounds.endOfData(period), done);
    }

    /** Reads every key from its owners as of the end of {@code period}: index 0 of the next (the barrier before). */
    @Override
    public List<Checkpoint.Entry> snapshot(List<Key> keys, int period) throws Exception {
        List<CompletableFuture<Checkpoint.Entry>> reads = new ArrayList<>();
        for (Key k : keys) {
            reads.add(rounds.snapshot(k.name(), Rounds.of(period, 0)));
        }
        List<Checkpoint.Entry> out = new ArrayList<>();
        for (CompletableFuture<Checkpoint.Entry> r : reads) {
            try {
                out.add(r.get());
            } catch (ExecutionException e) {
                throw (RuntimeException) DistKVStore.unwrap(e.getCause());
            }
        }
        return out;
    }

    @Override
    public boolean pullFetches() {
        return true;
    }

    @Override
    public void leave() {
        // The round client's leave (the barrier's and the keys' end) is the store's, made for either path.
    }

    @Override
    public void close() {
        // The round client is the store's: it closes it.
    }

    @Override
    public void recoveryTimeout(long ms) {
        rounds.recoveryTimeout(ms);
    }

    @Override
    public void onViewInstalled(ViewListener l) {
        listener = l;
    }

    /** Nothing to reach: the workers meet only at the keys' owners. */
    @Override
    public void reach(List<Integer> places, long timeoutMs) {
        // The cluster's members are the only peers, and Hazelcast keeps their connections.
    }

    /**
     * Tells the keys' owners of the workers view {@code epoch} drops; once every owner answered, the listener is
     * told. A change that fails (an owner failed the report, or the recovery timeout passed) fails every op.
     */
    @Override
    public void changeView(int epoch, int[] places) {
        int rank = -1;
        for (int r = 0; r < places.length; r++) {
            rank = places[r] == place ? r : rank;
        }
        int newRank = rank;
        rounds.changeView(epoch, places).whenComplete((last, err) -> {
            if (err != null) {
                Throwable cause = DistKVStore.unwrap(err);
                String why = cause instanceof IllegalStateException ? cause.getMessage() // it says what it waited for
                        : "the move to view " + epoch + " failed: " + cause.getMessage();
                LOG.error("worker {} of the job's first view: {}", place, why);
                rounds.failAll(why);
                return;
            }
            Map<String, Long> boundaries = new java.util.TreeMap<>(last);
            if (async) { // no round is summed: each key's boundary is this worker's last push before the change
                boundaries.replaceAll((key, none) -> {
                    long[] push = lastPush.get(key);
                    return push == null ? ElasticRule.NOT_STARTED : push[0];
                });
            }
            ViewListener l = listener;
            if (l != null) {
                l.installed(epoch, newRank, places.length, boundaries, -1);
            }
        });
    }

    @Override
    public void released(int epoch) {
        rounds.released(epoch);
    }

    @Override
    public void failAll(String why) {
        rounds.failAll(why);
    }

    static void complete(CompletableFuture<?> call, CallbackOnComplete done) {
        call.whenComplete((v, err) -> {
            if (err != null) {
                done.fail(DistKVStore.unwrap(err));
            } else {
                done.complete();
            }
        });
    }

    private static float[] toArray(FloatBuffer b) {
        float[] a = new float[b.remaining()];
        b.get(a);
        return a;
    }
}
