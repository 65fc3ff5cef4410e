package org.depengine.kvstore.hazelcast.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.RankOp;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule;
import org.depengine.kvstore.spi.Rounds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's side of an elastic job's views for the rounds kept in Hazelcast ({@code elastic=true} with
 * {@code updateOn=server} or {@code dist_async}; {@code docs/elastic-design.md}, section 9).
 *
 * <p>A worker keeps its rank in the job's first view (its <em>place</em>) as its slot in every round, whatever
 * its rank in later views. When the store hands it a view ({@link #changeView}), it tells every chunk of every
 * {@code dist_sync} key it declared, and the barrier's, that the places the view dropped are dropped
 * ({@link RankOp#dropped}): each chunk's rounds then complete without them, and what they gave stays. A key
 * declared later is told at its declaration. Every survivor tells every chunk (the op is idempotent), so no
 * survivor waits for another's. {@code dist_async} keys are not told: their rounds need no rank.
 *
 * <p><b>Torn rounds.</b> Each chunk answers the last round the dropped place gave it data. A worker pushes a
 * key's next round only once every chunk took its push of the round before, so a key's chunks can disagree only
 * on the dropped worker's last round, and only when it died in the middle of that push: some chunks summed its
 * part, the others complete the round without it, and no serial run gives the key's values from that round on.
 * Then every later op of the key fails, naming the key and the round. The detection is exact: a chunk's answer
 * is fixed once it is told (a dropped place's later contribution is refused), so every survivor reads the same
 * answers, and a round every chunk agrees on holds the dropped worker's part everywhere or nowhere.
 *
 * <p><b>The hold.</b> A chunk told of view {@code e} stamps its answers with {@code e} ({@code Reply.epoch()}); a
 * value stamped above the view the store has moved to ({@link #released}) is held until it has, so no pull here
 * sees a round summed without a dropped worker before this worker's listeners were told. A key's value is held
 * too until its chunks have answered every drop (its torn round, if any, is then known). Bounded: a hold for a
 * view not released here within {@code recoveryTimeoutMs} of the first value that needed it fails.
 *
 * <p>Thread-safe.
 */
final class ElasticRounds {
    private static final Logger LOG = LoggerFactory.getLogger(ElasticRounds.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** What the drops did to one key, as its chunks answered. Guarded by {@link #lock}. */
    private static final class Drops {
        /** Every drop told to the key's chunks so far, answered (or failed). */
        CompletableFuture<Void> told = DONE;
        /** The last round a dropped place gave data to, in the chunk that has the latest. */
        long last;
        /** The first torn round, or {@link Long#MAX_VALUE}. */
        long tornAt = Long.MAX_VALUE;
        String torn;
    }

    private final Calls calls;
    private final ChunkedKeys chunks;
    /** Slots per round: the job's first view's workers. */
    private final int workers;
    private final int place;
    private final boolean async;
    private final ScheduledExecutorService timer;
    private volatile long recoveryTimeoutMs = 10_000;
    private volatile int rank;
    /** Guards the fields below. */
    private final Object lock = new Object();
    /** The places of the last view handed over, in rank order. */
    private int[] places;
    /** Every place dropped so far, with the view that dropped it. */
    private final Map<Integer, Integer> dropped = new LinkedHashMap<>();
    private final Map<String, Drops> keys = new HashMap<>();
    /** Per view not released yet that a value waits for: completed when the store has moved to it. */
    private final TreeMap<Integer, CompletableFuture<Void>> gates = new TreeMap<>();
    /** This worker's rank in each view handed over and not released yet. */
    private final Map<Integer, Integer> rankIn = new HashMap<>();
    private int released;
    private String failed;
    /** The view changes, one after another: each starts once the one before has its answers. */
    private CompletableFuture<?> changes = DONE;

    /**
     * @param workers the job's first view's workers: the slots of every round
     * @param place this worker's rank in the job's first view
     * @param async whether the keys are {@code dist_async} (only the barrier's rounds need a rank then)
     * @param timer runs the deadlines
     */
    ElasticRounds(Calls calls, ChunkedKeys chunks, int workers, int place, boolean async, ScheduledExecutorService timer) {
        this.calls = calls;
        this.chunks = chunks;
        this.workers = workers;
        this.place = place;
        this.async = async;
        this.timer = timer;
        this.rank = place;
        this.places = new int[workers];
        java.util.Arrays.setAll(places, i -> i);
    }

    /** Bounds each view change, and each hold for a view, by {@code ms}. */
    void recoveryTimeout(long ms) {
        recoveryTimeoutMs = ms;
    }

    /** This worker's rank in the view its store moved to last. */
    int rank() {
        return rank;
    }

    /**
     * The store hands over view {@code epoch} of the workers at places {@code next} (in rank order): every chunk
     * of every key declared is told of the places it drops. Changes are made one after another, in the order
     * handed over.
     *
     * @return completes once every chunk has answered, with each key declared (the barrier's left out) mapped
     *     to the last round a dropped worker gave it data to so far ({@code dist_async} keys:
     *     {@link ElasticRule#NOT_STARTED}); or exceptionally if a chunk's owner fails the report, or the change
     *     takes more than {@code recoveryTimeoutMs}
     */
    CompletableFuture<Map<String, Long>> changeView(int epoch, int[] next) {
        CompletableFuture<Map<String, Long>> result = new CompletableFuture<>();
        synchronized (lock) {
            changes = changes.handle((v, e) -> null).thenCompose(v -> move(epoch, next)).whenComplete((m, e) -> {
                if (e != null) {
                    result.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                } else {
                    result.complete(m);
                }
            });
        }
        long ms = recoveryTimeoutMs;
        deadline(result, ms, () -> new IllegalStateException("the move to view " + epoch
                + " did not finish within recoveryTimeoutMs=" + ms + " (it waits for the keys' owners to answer "
                + "the report of the workers the view dropped)"));
        return result;
    }

    private CompletableFuture<Map<String, Long>> move(int epoch, int[] next) {
        Map<String, Integer> declared;
        List<CompletableFuture<Void>> tells = new ArrayList<>();
        synchronized (lock) {
            for (int p : next) {
                if (indexOf(places, p) < 0) { // its proposers admit none (ElasticMembership): a view that does is a bug
                    return CompletableFuture.failedFuture(new IllegalStateException("view " + epoch + " admits the worker "
                            + "registered at " + p + ", but a job whose keys live on the members admits no joiner yet"));
                }
            }
            Map<Integer, Integer> gone = new LinkedHashMap<>();
            for (int p : places) {
                if (indexOf(next, p) < 0) {
                    gone.put(p, epoch);
                    dropped.put(p, epoch);
                }
            }
            places = next.clone();
            rankIn.put(epoch, indexOf(next, place));
            declared = chunks.declared();
            if (!gone.isEmpty()) {
                declared.forEach((key, length) -> {
                    if (rounded(key)) {
                        tells.add(tell(key, length, gone));
                    }
                });
            }
            LOG.info("rank {}: view {} drops the workers of first ranks {}: telling the owners of {} keys", rank, epoch,
                    gone.keySet(), tells.size());
        }
        return CompletableFuture.allOf(tells.toArray(CompletableFuture[]::new)).thenApply(v -> {
            Map<String, Long> last = new TreeMap<>();
            synchronized (lock) {
                declared.keySet().stream().filter(k -> !k.equals(Calls.BARRIER)).forEach(k -> {
                    Drops d = keys.get(k);
                    last.put(k, !rounded(k) ? ElasticRule.NOT_STARTED : d == null ? 0 : d.last);
                });
            }
            return last;
        });
    }

    /** {@code key} was declared here (with {@code length} floats): after drops, its chunks are told of them all. */
    void declared(String key, int length) {
        if (!rounded(key)) {
            return;
        }
        synchronized (lock) {
            if (!dropped.isEmpty()) {
                tell(key, length, Map.copyOf(dropped));
            }
        }
    }

    /** Whether {@code key}'s rounds have a slot per place: a {@code dist_sync} key, or the barrier's. */
    private boolean rounded(String key) {
        return !async || Calls.BARRIER.equals(key);
    }

    /**
     * Tells every chunk of {@code key} that each place of {@code which} is dropped (by the view mapped to it);
     * the key's answers are judged once all came ({@link #judge}). Under the lock.
     */
    private CompletableFuture<Void> tell(String key, int length, Map<Integer, Integer> which) {
        Drops d = keys.computeIfAbsent(key, k -> new Drops());
        int n = chunks.count(length);
        Map<Integer, long[]> answers = new HashMap<>();
        List<CompletableFuture<?>> parts = new ArrayList<>();
        which.keySet().forEach(p -> answers.put(p, new long[n]));
        chunks.forEachChunk(key, length, (chunkKey, off, len) -> which.forEach((p, epoch) -> {
            long[] mine = answers.get(p);
            int c = off / chunks.splitFloats();
            parts.add(calls.call(chunkKey, RankOp.dropped(workers, p, epoch), key, "report of dropped worker " + p
                    + " (view " + epoch + ")").thenAccept(reply -> mine[c] = reply.round()));
        }));
        CompletableFuture<Void> these = CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
                .thenRun(() -> judge(key, d, answers));
        d.told = CompletableFuture.allOf(d.told, these);
        return these;
    }

    /** The chunks of {@code key} answered the drops: each dropped place's last round, and a torn one. */
    private void judge(String key, Drops d, Map<Integer, long[]> answers) {
        synchronized (lock) {
            answers.forEach((p, rounds) -> {
                long min = Long.MAX_VALUE;
                long max = 0;
                for (long r : rounds) {
                    min = Math.min(min, r);
                    max = Math.max(max, r);
                }
                d.last = Math.max(d.last, max);
                if (min != max && max < d.tornAt) {
                    long reached = 0;
                    for (long r : rounds) {
                        reached += r == max ? 1 : 0;
                    }
                    d.tornAt = max;
                    d.torn = "its round " + Rounds.text(max) + " is torn: worker rank " + p
                            + " of the job's first view died in the middle of its push of that round, which reached "
                            + reached + " of the key's " + rounds.length
                            + " chunks (splitFloats): those summed its part and the others complete the round without it,"
                            + " so no serial run gives the key's values from that round on, and its ops of that round and"
                            + " later fail; restart the job from a checkpoint taken before (depengine.kvstore.resume)";
                    LOG.error("rank {}: key '{}': {}", rank, key, d.torn);
                }
            });
        }
    }

    /** Why an op of {@code key}'s round {@code round} must fail (a torn round at or before it, the job failed), or null. */
    String refusal(String key, long round) {
        synchronized (lock) {
            if (failed != null) {
                return failed;
            }
            Drops d = keys.get(key);
            return d != null && round >= d.tornAt ? d.torn : null;
        }
    }

    /**
     * {@code value}, a value of {@code key} as of round {@code asOf} read from chunks that had been told of view
     * {@code epoch}, once the store has moved to that view and the key's chunks answered every drop; or the
     * failure ({@code failure} builds it from a cause) if the key is torn at or before {@code asOf}, the job
     * failed here, or the view is not released within {@code recoveryTimeoutMs}.
     */
    <T> CompletableFuture<T> settle(String key, long asOf, int epoch, T value, Function<String, KVStoreException> failure) {
        CompletableFuture<Void> ready;
        synchronized (lock) {
            if (failed != null) {
                return CompletableFuture.failedFuture(failure.apply(failed));
            }
            Drops d = keys.get(key);
            CompletableFuture<Void> told = d == null ? DONE : d.told;
            ready = epoch <= released ? told : CompletableFuture.allOf(gate(epoch), told);
        }
        if (ready.isDone() && !ready.isCompletedExceptionally()) {
            String why = refusal(key, asOf);
            return why == null ? CompletableFuture.completedFuture(value) : CompletableFuture.failedFuture(failure.apply(why));
        }
        return ready.handle((v, err) -> {
            Throwable e = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
            if (e instanceof KVStoreException k) {
                throw k;
            }
            String why = e != null ? e.getMessage() : refusal(key, asOf);
            if (why != null) {
                throw failure.apply(why);
            }
            return value;
        });
    }

    /** Completed once the store has moved to view {@code epoch}; fails after {@code recoveryTimeoutMs}. Under the lock. */
    private CompletableFuture<Void> gate(int epoch) {
        return gates.computeIfAbsent(epoch, e -> {
            CompletableFuture<Void> g = new CompletableFuture<>();
            long ms = recoveryTimeoutMs;
            deadline(g, ms, () -> new IllegalStateException("a key's owner was told of view " + e
                    + ", which this worker's store has not moved to within recoveryTimeoutMs=" + ms
                    + ": the value summed over it waits for the move"));
            return g;
        });
    }

    /** Fails {@code f} with {@code why}'s exception unless it completes within {@code ms}. */
    private void deadline(CompletableFuture<?> f, long ms, java.util.function.Supplier<RuntimeException> why) {
        try {
            ScheduledFuture<?> t = timer.schedule(() -> f.completeExceptionally(why.get()), ms, TimeUnit.MILLISECONDS);
            f.whenComplete((v, e) -> t.cancel(false));
        } catch (RejectedExecutionException closing) {
            f.completeExceptionally(new IllegalStateException("the store is closing"));
        }
    }

    /** The store has moved to view {@code epoch} and told its listeners: the values summed over it are let go. */
    void released(int epoch) {
        List<CompletableFuture<Void>> open;
        synchronized (lock) {
            released = Math.max(released, epoch);
            Integer r = rankIn.get(epoch);
            if (r != null && r >= 0) {
                rank = r;
            }
            rankIn.keySet().removeIf(e -> e <= epoch);
            SortedMap<Integer, CompletableFuture<Void>> due = gates.headMap(released, true);
            open = new ArrayList<>(due.values());
            due.clear();
        }
        open.forEach(g -> g.complete(null));
    }

    /** The job cannot go on here: every value held, and every later one, fails with {@code why}. */
    void failAll(String why) {
        List<CompletableFuture<Void>> open;
        synchronized (lock) {
            if (failed != null) {
                return;
            }
            failed = why;
            open = new ArrayList<>(gates.values());
            gates.clear();
        }
        open.forEach(g -> g.completeExceptionally(new IllegalStateException(why)));
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
