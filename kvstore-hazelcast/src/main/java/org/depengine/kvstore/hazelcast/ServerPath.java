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
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.kvstore.spi.StoreStats;

/**
 * {@code updateOn=server} and {@code dist_async}: every key lives in the job's Hazelcast map, each chunk on
 * the member that owns its partition, with {@code backups} synchronous copies; pushes are entry processors
 * there, which sum each round in rank order and run the updater ({@link RoundClient}).
 */
final class ServerPath implements DataPath {
    private final RoundClient rounds;
    private final boolean async;
    private final StoreStats stats;
    /** Per key: the round of this worker's last push and when it left, for the round's latency (guarded by the key's ops). */
    private final Map<String, long[]> lastPush = new ConcurrentHashMap<>();
    /** Per key: the latest round this worker has seen complete (a pull's), so each counts once. */
    private final Map<String, Long> seen = new ConcurrentHashMap<>();

    ServerPath(RoundClient rounds, boolean async, StoreStats stats) {
        this.rounds = rounds;
        this.async = async;
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
