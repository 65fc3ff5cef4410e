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
 * calling the owner. When the cluster loses every copy of a partition of the job's keys, this worker's side
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
    /**
     * {@code dist_sync}, once a rank is lost: per chunk, its owner's answer to the loss (the last round that
     * can still complete, and why no later one can). A call of a later round fails at once.
     */
    private final Map<String, CompletableFuture<Reply>> lossLimits = new ConcurrentHashMap<>();
    /**
     * {@code dist_sync}: per chunk, the reply of this worker's push that completed the chunk's latest round
     * (it carries the round's value), until this worker's pull of that round takes it. At most one per chunk.
     */
    private final Map<String, Reply> completedByPush = new ConcurrentHashMap<>();
    /**
     * {@code dist_sync}, chunks of at most {@link KeyState#VALUE_EVENT_FLOATS}: per chunk, the round this
     * worker's push left pending (the owner then marked this rank waiting), until this worker's pull of that
     * round takes it: that pull waits for the round's event, which brings the value, and makes no call first.
     */
    private final Map<String, Long> leftPending = new ConcurrentHashMap<>();

    /**
     * A client of job {@code job}'s keys; declares the barrier key.
     *
     * @param async whether the keys are {@code dist_async} (barriers are sync rounds either way)
     * @param timer runs the calls' deadlines and the reads' rechecks (one thread; the caller shuts it down)
     */
    public RoundClient(HazelcastInstance hz, JobMembership job, boolean async, ScheduledExecutorService timer) {
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
        calls = new Calls(map, rank, timeout.toMillis(), timer, closed);
        reads = new PendingReads(map, timer, (k, w, c) -> calls.failure(k, w, c, null), closed);
        // Only the events of stores that tell this rank; those of small chunks carry the state (the value).
        mapListener = map.addEntryListener(reads, ToldRanks.withValue(rank), true);
        mapNoValueListener = map.addEntryListener(reads, ToldRanks.withoutValue(rank), false);
        partitionLostListener = map.addPartitionLostListener((MapPartitionLostListener) e -> partitionLost(e.getPartitionId()));
        job.onLoss((lost, why) -> reportLoss(lost, why).exceptionally(err -> {
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
     * first pull waits for rank 0's init.
     */
    public CompletableFuture<Void> init(String key, float[] value) {
        Integer known = chunks.declare(key, value.length);
        if (known != null && known != value.length) {
            return CompletableFuture.failedFuture(calls.failure(key, "init", "init with " + value.length
                    + " floats: it was initialised with " + known, null));
        }
        if (rank != 0) {
            return CompletableFuture.completedFuture(null);
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
        if (rank != 0) {
            return init(key, value);
        }
        Integer known = chunks.declare(key, value.length);
        if (known != null && known != value.length) {
            return init(key, value); // fails naming both lengths
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
                cause -> calls.failure(key, what, cause, null)));
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
                return CompletableFuture.completedFuture(out);
            }
            return read(key, newest, label, waitTimeout);
        });
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

    /**
     * Tells every key's owner (the barrier's included) that rank {@code lost} left without closing its
     * store, and keeps each owner's answer ({@link #lossLimits}).
     */
    private CompletableFuture<Void> reportLoss(int lost, String why) {
        List<CompletableFuture<?>> parts = new ArrayList<>();
        if (lost >= workers) {
            return CompletableFuture.completedFuture(null); // a joiner of an elastic job: no slot in these rounds
        }
        for (String k : chunks.allChunks()) {
            CompletableFuture<Reply> answer = calls.call(k, RankOp.lost(workers, async, lost, why), null,
                    "report of lost rank " + lost);
            lossLimits.put(k, answer);
            parts.add(answer);
        }
        return all(parts);
    }

    /**
     * Once a rank is known lost: runs {@code call}, which needs round {@code round} of {@code chunkKey} to
     * complete (0: only the key's init), unless that round can no longer complete; then fails it at once,
     * naming the lost rank and why. The chunk's owner is asked once (a loss report of each lost rank; its
     * answer is kept) for the chunks not reported to when the loss was seen, so a key created after the loss
     * knows it too: membership, not the key's state, says who is gone. {@code dist_async} rounds need no
     * rank: only their reads are checked (a read needs the init).
     */
    private <T> CompletableFuture<T> unlessLost(String chunkKey, long round, String key, String what,
                                                Supplier<CompletableFuture<T>> call) {
        Map<Integer, String> lost = new java.util.TreeMap<>(job.lostRanks());
        lost.keySet().removeIf(r -> r >= workers); // joiners of an elastic job have no slot in these rounds
        if (lost.isEmpty() || asyncFor(key) && round > 0) {
            return call.get();
        }
        CompletableFuture<Reply> limit = lossLimits.computeIfAbsent(chunkKey, k -> {
            List<CompletableFuture<Reply>> answers = new ArrayList<>();
            lost.forEach((r, why) -> answers.add(calls.call(k, RankOp.lost(workers, asyncFor(key), r, why), null,
                    "report of lost rank " + r)));
            return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                    .thenApply(v -> answers.get(answers.size() - 1).join());
        });
        return limit.handle((answer, err) -> {
            if (err != null) {
                lossLimits.remove(chunkKey, limit); // asked again by the next call; this one asks the owner itself
                return null;
            }
            return answer;
        }).thenCompose(answer -> {
            if (answer != null && answer.message() != null && round > answer.round()) {
                String cannot = Calls.BARRIER.equals(key) ? "; the barrier cannot complete without every worker"
                        : answer.round() < 0 ? "; the key's init (rank 0's) never landed, so no round of it can complete"
                        : "; no round of this key after " + Rounds.text(answer.round()) + " can complete";
                return CompletableFuture.failedFuture(calls.failure(key, what, answer.message() + cannot
                        + " (failed without calling the key's owner)", null));
            }
            return call.get();
        });
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
