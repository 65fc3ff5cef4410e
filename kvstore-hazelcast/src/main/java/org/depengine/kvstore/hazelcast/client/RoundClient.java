package org.depengine.kvstore.hazelcast.client;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.MapPartitionLostListener;
import java.nio.FloatBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.hz.InitOp;
import org.depengine.kvstore.hazelcast.hz.KeyState;
import org.depengine.kvstore.hazelcast.hz.ListenerRemovals;
import org.depengine.kvstore.hazelcast.hz.PushOp;
import org.depengine.kvstore.hazelcast.hz.RankOp;
import org.depengine.kvstore.hazelcast.hz.ReadOp;
import org.depengine.kvstore.hazelcast.hz.Reply;
import org.depengine.kvstore.hazelcast.hz.ToldRanks;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.JobMembership;
import org.depengine.kvstore.spi.Rounds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's rounds on keys kept in the job's Hazelcast map ({@code updateOn=server}, {@code dist_async},
 * and every store's barriers): push, pull, init, end of data, checkpoint reads and barriers, each
 * asynchronous and completed from Hazelcast's callbacks (ps-lite's {@code KVWorker} with its
 * {@code Customer}). Keys are split into chunks ({@link ChunkedKeys}); every change runs as an entry
 * processor on the chunk's owner, whose state is a {@link KeyState}.
 *
 * <p>A read that is not ready yet waits for the chunk's entry events ({@link PendingReads}). A push that
 * completes a round brings the round's value back in its reply, and this worker's pull of that round takes
 * it without a call; a push that leaves its round pending marks this rank waiting, and for a chunk of at
 * most {@link KeyState#VALUE_EVENT_FLOATS} the round's event carries the state, from which the pull takes
 * the value, again without a call. A split key's chunks are read at one round.
 *
 * <p>Losses: when the membership reports a rank lost, every chunk's owner is told, and answers the last
 * round that can still complete; a later call of a later round fails at once, naming the lost rank, without
 * calling the owner. In an elastic job a loss is a view change instead ({@link #changeView}, {@link ElasticRounds}):
 * the rounds complete without the workers the view dropped, and every worker inits each key (the first init to
 * land is kept). When the cluster loses every copy of a partition of the job's keys, this worker's side
 * holds only part of the job's state: every waiting read and every later call fails at once.
 *
 * <p>Thread-safe. Rounds are the caller's ({@link Rounds}).
 */
public final class RoundClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RoundClient.class);

    private final JobMembership job;
    private final IMap<String, KeyState> map;
    private final int rank;
    private final int workers;
    private final boolean async;
    private final Duration timeout;
    private final Duration joinTimeout;
    private final ScheduledExecutorService timer;
    private final ChunkedKeys chunks;
    private final Calls calls;
    private final PendingReads reads;
    private final UUID mapListener;
    private final UUID mapNoValueListener;
    private final UUID partitionLostListener;
    private long barriers;
    private volatile String closedBecause;
    /** A job that is not elastic: the losses told to the owners, and their answers ({@link LossLimits}); else null. */
    private final LossLimits losses;
    /**
     * {@code dist_sync}: per chunk, the reply of this worker's push that completed the chunk's latest round
     * (it carries the round's value), until this worker's pull of that round takes it. At most one per chunk.
     */
    private final Map<String, Reply> completedByPush = new ConcurrentHashMap<>();
    /** An elastic job's views ({@code elastic=true}), or null. */
    private final ElasticRounds elastic;
    /**
     * {@code dist_sync}, chunks of at most {@link KeyState#VALUE_EVENT_FLOATS}: per chunk, the round this
     * worker's push left pending (the owner then marked this rank waiting), until this worker's pull of that
     * round takes it: that pull waits for the round's event, which brings the value, and makes no call first.
     */
    private final Map<String, Long> leftPending = new ConcurrentHashMap<>();

    /**
     * A client of job {@code job}'s keys, in a job that is not elastic; declares the barrier key.
     *
     * @param async whether the keys are {@code dist_async} (barriers are sync rounds either way)
     * @param timer runs the calls' deadlines and the reads' rechecks (one thread; the caller shuts it down)
     */
    public RoundClient(HazelcastInstance hz, JobMembership job, boolean async, ScheduledExecutorService timer) {
        this(hz, job, async, false, timer);
    }

    /**
     * A client of job {@code job}'s keys; declares the barrier key.
     *
     * @param async whether the keys are {@code dist_async} (barriers are sync rounds either way)
     * @param elastic whether a lost worker is a view change ({@link #changeView}) rather than a failure of the
     *     rounds that need it
     * @param timer runs the calls' deadlines and the reads' rechecks (one thread; the caller shuts it down)
     */
    public RoundClient(HazelcastInstance hz, JobMembership job, boolean async, boolean elastic,
                       ScheduledExecutorService timer) {
        this.job = job;
        this.rank = job.rank();
        this.workers = job.workers();
        this.async = async;
        this.timeout = job.settings().timeout();
        this.joinTimeout = job.settings().joinTimeout();
        this.map = hz.getMap(ClusterNode.MAP_PREFIX + job.jobId());
        this.chunks = new ChunkedKeys(job.settings().splitFloats());
        this.timer = timer;
        Supplier<String> closed = () -> closedBecause;
        ElasticRounds[] views = new ElasticRounds[1]; // the calls name this worker's rank in the view it moved to
        calls = new Calls(map, () -> views[0] == null ? rank : views[0].rank(), timeout.toMillis(), timer, closed);
        views[0] = elastic ? new ElasticRounds(calls, chunks, workers, rank, async, timer) : null;
        this.elastic = views[0];
        this.losses = elastic ? null : new LossLimits(job, calls, chunks, workers, async);
        reads = new PendingReads(map, timer, (k, w, c) -> calls.failure(k, w, c, null), closed);
        // Only the events of stores that tell this rank; those of small chunks carry the state (the value).
        mapListener = map.addEntryListener(reads, ToldRanks.withValue(rank), true);
        mapNoValueListener = map.addEntryListener(reads, ToldRanks.withoutValue(rank), false);
        partitionLostListener = map.addPartitionLostListener((MapPartitionLostListener) e -> partitionLost(e.getPartitionId()));
        if (elastic) {
            init(Calls.BARRIER, new float[0]);
            return; // its losses come as view changes
        }
        job.onLoss((lost, why) -> losses.report(lost, why).exceptionally(err -> {
            if (!job.closing()) {
                LOG.warn("rank {}: could not report the loss of rank {}: {}", rank, lost, err.toString());
            }
            reads.failAll(why);
            return null;
        }));
        init(Calls.BARRIER, new float[0]);
    }

    /**
     * Declares {@code key} with {@code value}'s length; rank 0 also stores {@code value} as the key's first
     * version (an init that finds the key initialised changes nothing). Other ranks store nothing: their
     * first pull waits for rank 0's init. In an elastic job every worker stores its value, and the first to
     * land is kept: a key's init does not depend on a worker that may be lost (the workers of an elastic job
     * init each key with the same value).
     */
    public CompletableFuture<Void> init(String key, float[] value) {
        CompletableFuture<Void> refused = declare(key, value.length);
        if (refused != null || rank != 0 && elastic == null) {
            return refused != null ? refused : CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        chunks.forEachChunk(key, value.length, (chunkKey, off, len) -> parts.add(calls.call(chunkKey,
                new InitOp(key, off, workers, asyncFor(key), slice(value, off, len)), key, "init")));
        return all(parts);
    }

    /**
     * Rank 0's init of a key resumed from a checkpoint: its value, the updater state ({@code stateFloats} per
     * element, slot after slot over the whole key) and update count, as of {@code round}; each chunk gets its
     * slice of every slot. Other ranks only declare the key.
     */
    public CompletableFuture<Void> initResumed(String key, float[] value, int stateFloats, float[] state, long steps,
                                               long round) {
        CompletableFuture<Void> refused = declare(key, value.length);
        if (refused != null || rank != 0) { // only rank 0 has the checkpoint's values
            return refused != null ? refused : CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        chunks.forEachChunk(key, value.length, (chunkKey, off, len) -> {
            float[] chunkState = new float[stateFloats * len];
            for (int j = 0; j < stateFloats; j++) {
                System.arraycopy(state, j * value.length + off, chunkState, j * len, len);
            }
            parts.add(calls.call(chunkKey, InitOp.resumed(key, off, workers, asyncFor(key), slice(value, off, len),
                    chunkState, steps, round), key, "init"));
        });
        return all(parts);
    }

    /** Declares {@code key} with {@code length} floats: null, or the failure of a length another init gave. */
    private CompletableFuture<Void> declare(String key, int length) {
        Integer known = chunks.declare(key, length);
        if (known != null && known != length) {
            return CompletableFuture.failedFuture(calls.failure(key, "init", "init with " + length
                    + " floats: it was initialised with " + known, null));
        }
        if (known == null && elastic != null) {
            elastic.declared(key, length);
        }
        return null;
    }

    /**
     * A checkpoint's read of {@code key}: its value, updater state (slot after slot over the whole key) and
     * update count once {@code round} has completed ({@code dist_async}: the latest), every chunk at one
     * round (else the read fails: the caller did not keep the checkpoint's contract).
     */
    public CompletableFuture<Checkpoint.Entry> snapshot(String key, long round) {
        int len = chunks.require(key, -1, "checkpoint", rank);
        String what = "checkpoint read as of round " + Rounds.text(round);
        Map<Integer, Reply> replies = new ConcurrentHashMap<>();
        List<CompletableFuture<?>> parts = new ArrayList<>();
        chunks.forEachChunk(key, len, (chunkKey, off, n) -> parts.add(reads.read(chunkKey,
                ReadOp.withState(key, off, workers, asyncFor(key), rank, round), key, what, timeout)
                .thenAccept(reply -> replies.put(off, reply))));
        return all(parts).thenApply(v -> Snapshots.join(key, len, replies, !asyncFor(key),
                cause -> calls.failure(key, what, cause, null))).thenCompose(entry -> settle(key, round,
                replies.values().stream().mapToInt(Reply::epoch).max().orElse(0), entry, what));
    }

    /** Pushes this rank's {@code value} of {@code key} for round {@code round} (from 1), applied by {@code updater}. */
    public CompletableFuture<Void> push(String key, long round, float[] value, Updater updater) {
        return push(key, round, value.length, (off, n) -> slice(value, off, n), updater, "round " + Rounds.text(round));
    }

    /**
     * As {@link #push(String, long, float[], Updater)}, with the value read from {@code value} (absolute
     * indices from 0, {@code value.limit()} floats): each chunk is copied once, straight into the array its
     * call sends. The caller keeps the buffer unchanged until the returned future completes.
     */
    public CompletableFuture<Void> push(String key, long round, FloatBuffer value, Updater updater, String label) {
        return push(key, round, value.limit(), (off, n) -> {
            float[] chunk = new float[n];
            value.get(off, chunk);
            return chunk;
        }, updater, label);
    }

    /** A chunk of a pushed value as the array its call sends: {@code n} floats from {@code offset}. */
    @FunctionalInterface
    private interface ChunkValues {
        float[] chunk(int offset, int n);
    }

    private CompletableFuture<Void> push(String key, long round, int length, ChunkValues values, Updater updater,
                                         String label) {
        int len = chunks.require(key, length, "push", rank);
        String what = "push " + label;
        String torn = elastic == null ? null : elastic.refusal(key, round);
        if (torn != null) {
            return CompletableFuture.failedFuture(calls.failure(key, what, torn, null));
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        chunks.forEachChunk(key, len, (chunkKey, off, n) -> parts.add(unlessLost(chunkKey, round, key, what,
                () -> calls.call(chunkKey, new PushOp(key, off, workers, asyncFor(key), rank, round, values.chunk(off, n),
                        updater), key, what))
                .thenAccept(reply -> {
                    if (reply.value() != null && closedBecause == null) {
                        completedByPush.put(chunkKey, reply);
                    } else if (!asyncFor(key) && reply.round() < round && n <= KeyState.VALUE_EVENT_FLOATS) {
                        leftPending.put(chunkKey, round);
                    }
                })));
        return all(parts);
    }

    /** Tells the owners that this rank's push of {@code round} was skipped (a failed producer): the round completes without it. */
    public CompletableFuture<Void> pushSkipped(String key, long round, String label) {
        int len = chunks.require(key, -1, "push", rank);
        List<CompletableFuture<?>> parts = new ArrayList<>();
        chunks.forEachChunk(key, len, (chunkKey, off, n) -> parts.add(calls.call(chunkKey,
                PushOp.skipped(key, off, workers, rank, round), key, "skipped push " + label)));
        return all(parts);
    }

    /**
     * The value of {@code key} once round {@code round} has completed (round 0: once the init has landed;
     * {@code dist_async}: pass 0 and get the latest value after the init, chunk by chunk).
     */
    public CompletableFuture<float[]> pull(String key, long round) {
        return read(key, round, "round " + Rounds.text(round), timeout).thenApply(ChunkReads::joined);
    }

    /**
     * As {@link #pull(String, long)}, writing the value into {@code target} (absolute indices from 0) once
     * every chunk has answered at one round: each chunk's reply is copied once, straight into its place, and
     * {@code target} is left unchanged if the pull fails.
     */
    public CompletableFuture<Void> pull(String key, long round, String label, FloatBuffer target) {
        return read(key, round, label, timeout).thenAccept(c -> c.into(target));
    }

    /**
     * Reads every chunk of {@code key} as of {@code round}. In {@code dist_sync} the chunks must answer at
     * one round: a chunk can be ahead of another (a worker lost after pushing only some chunks of a round,
     * or rounds going on after this worker's end of data), and its parts would make a value no round ever
     * had. Then every chunk is read again as of the newest round: they catch up, or the lagging chunk's
     * owner fails the read (naming the lost worker).
     */
    private CompletableFuture<ChunkReads> read(String key, long round, String label, Duration waitTimeout) {
        int len = chunks.require(key, -1, "pull", rank);
        ChunkReads out = new ChunkReads(chunks.count(len), len, chunks.splitFloats());
        String what = "pull " + label;
        String closed = closedBecause;
        if (closed != null) {
            return CompletableFuture.failedFuture(calls.failure(key, what, closed, null));
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        chunks.forEachChunk(key, len, (chunkKey, off, n) -> {
            // A read of a period's round 0 may be ready without the lost rank (it may have ended the period
            // before): it needs only the key's init (0), which a loss of rank 0 before it landed rules out.
            long needs = Rounds.index(round) == 0 ? 0 : round;
            Reply pushed = takeCompleted(chunkKey, round);
            boolean told = leftPending.remove(chunkKey, round);
            parts.add((pushed != null ? CompletableFuture.completedFuture(pushed) : unlessLost(chunkKey, needs, key, what,
                    () -> reads.read(chunkKey, new ReadOp(key, off, workers, asyncFor(key), rank, round), key, what,
                            waitTimeout, told)))
                    .thenAccept(reply -> out.put(off, reply)));
        });
        return all(parts).thenCompose(v -> {
            long newest = out.newestRound(round);
            if (asyncFor(key) || out.allAt(newest)) {
                return settle(key, newest, out.epoch(), out, what);
            }
            return read(key, newest, label, waitTimeout);
        });
    }

    /** An elastic job's value of {@code key} as of {@code asOf} once this worker may see it ({@link ElasticRounds#settle}). */
    private <T> CompletableFuture<T> settle(String key, long asOf, int epoch, T value, String what) {
        return elastic == null ? CompletableFuture.completedFuture(value)
                : elastic.settle(key, asOf, epoch, value, cause -> calls.failure(key, what, cause, null));
    }

    /** The reply of this worker's push that completed {@code round} of {@code chunkKey}, removed; else null. */
    private Reply takeCompleted(String chunkKey, long round) {
        Reply r = completedByPush.get(chunkKey);
        return r != null && r.round() == round && completedByPush.remove(chunkKey, r) ? r : null;
    }

    /**
     * Tells every key's owner that this rank has no more data in {@code period}: that period's rounds
     * complete without it. (The barrier key is left out: barriers always wait for every rank.)
     */
    public CompletableFuture<Void> endOfData(int period) {
        List<CompletableFuture<?>> parts = new ArrayList<>();
        for (String k : chunks.allChunks()) {
            if (!k.equals(Calls.BARRIER)) {
                parts.add(calls.call(k, RankOp.endOfData(workers, async, rank, period), null, "end of data"));
            }
        }
        return all(parts);
    }

    /**
     * A rendezvous of every rank: completes once every rank has called it as many times. The caller bounds
     * the wait; a lost rank fails it.
     */
    public synchronized CompletableFuture<Void> barrier() {
        long round = ++barriers;
        String label = "barrier " + round;
        return push(Calls.BARRIER, round, 0, (off, n) -> new float[0], null, label).thenCompose(v -> read(Calls.BARRIER, round, label, joinTimeout))
                .thenApply(v -> null);
    }

    /** Runs {@code call} unless a loss rules its round out ({@link LossLimits}; an elastic job's losses never do). */
    private <T> CompletableFuture<T> unlessLost(String chunkKey, long round, String key, String what,
                                                Supplier<CompletableFuture<T>> call) {
        return losses == null ? call.get() : losses.unlessLost(chunkKey, round, key, asyncFor(key), what, call);
    }

    /** Barriers are sync rounds in either mode. */
    private boolean asyncFor(String key) {
        return async && !key.equals(Calls.BARRIER);
    }

    /**
     * Every copy of a partition of the job's keys was on members that left this worker's cluster: its side
     * holds only part of the job's state (the lost partitions come back empty), as when this worker is cut
     * off from the others or several members crashed together. It fails its waiting reads and every call to
     * come at once, naming the ranks that left.
     */
    private void partitionLost(int partition) {
        if (closedBecause != null) {
            return;
        }
        Map<Integer, String> gone = job.departedRanks();
        StringBuilder who = new StringBuilder();
        gone.forEach((r, member) -> who.append(who.length() == 0 ? "" : ", ").append("worker rank ").append(r)
                .append(" (member ").append(member).append(')'));
        String reason = (gone.isEmpty() ? "members" : who) + " left the cluster, and with " + (gone.size() == 1 ? "it" : "them")
                + " every copy of partition " + partition + " of job '" + job.jobId() + "': the job's state on this side"
                + " is incomplete (is this worker cut off from the others: host unreachable, a network split?) and it"
                + " cannot go on";
        LOG.error("rank {}: {}", rank, reason);
        closedBecause = reason;
        reads.failAll(reason);
    }

    /**
     * An elastic job's view {@code epoch}, of the workers whose ranks in the job's first view are {@code places}
     * (in rank order), is handed to this worker: the owners of every key's chunks are told of the workers it
     * drops, and their rounds complete without them ({@link ElasticRounds}). Values summed over the view are
     * held here until {@link #released}.
     *
     * @return completes once every owner has answered, with each key mapped to the last round a dropped worker
     *     gave it data to ({@code dist_async} keys: {@code ElasticRule.NOT_STARTED}); exceptionally if an owner
     *     failed the report or the change took more than the recovery timeout
     * @throws IllegalStateException if the job is not elastic
     */
    public CompletableFuture<Map<String, Long>> changeView(int epoch, int[] places) {
        return elastic().changeView(epoch, places);
    }

    /** The store has moved to view {@code epoch} and told its listeners: the values summed over it are let go. */
    public void released(int epoch) {
        elastic().released(epoch);
    }

    /** Bounds each view change of an elastic job, and each value held for a view, by {@code ms}. */
    public void recoveryTimeout(long ms) {
        elastic().recoveryTimeout(ms);
    }

    /** An elastic job cannot go on here: every waiting read and every later call fails with {@code why}. */
    public void failAll(String why) {
        elastic().failAll(why);
        if (closedBecause == null) {
            closedBecause = why;
        }
        reads.failAll(why);
    }

    private ElasticRounds elastic() {
        if (elastic == null) {
            throw new IllegalStateException("rank " + rank + ": a job that is not elastic has one view");
        }
        return elastic;
    }

    /** Why this client fails every call (the store closed, or the job's state is incomplete), or null. */
    public String closedBecause() {
        return closedBecause;
    }

    /**
     * This worker's part in leaving the job normally: the barriers to come fail at once on the others (a
     * barrier needs every rank), and ({@code dist_sync}) every round to come completes without this rank.
     * Bounded by the join timeout.
     */
    public void leave() throws Exception {
        if (rank >= workers) {
            return; // a joiner of an elastic job (updateOn=worker): it has no slot in the rounds kept here
        }
        calls.call(Calls.BARRIER, RankOp.lost(workers, false, rank, "rank " + rank + " closed its store normally; a "
                + "barrier needs all " + workers + " workers"), null, "close").get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!async) {
            endOfData(Integer.MAX_VALUE).get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Stops listening and fails the reads still waiting ("the store was closed"). Idempotent. */
    @Override
    public void close() {
        closedBecause = "the store was closed";
        if (elastic != null) {
            elastic.failAll(closedBecause); // a value held for a view this store will not move to
        }
        completedByPush.clear();
        leftPending.clear();
        reads.failAll(closedBecause);
        ListenerRemovals.removeEach(LOG, rank, () -> map.removeEntryListener(mapListener),
                () -> map.removeEntryListener(mapNoValueListener), () -> map.removePartitionLostListener(partitionLostListener));
    }

    private static CompletableFuture<Void> all(List<CompletableFuture<?>> parts) {
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    private static float[] slice(float[] value, int off, int len) {
        if (off == 0 && len == value.length) {
            return value;
        }
        return Arrays.copyOfRange(value, off, off + len);
    }
}
