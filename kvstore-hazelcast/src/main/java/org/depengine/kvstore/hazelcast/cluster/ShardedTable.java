package org.depengine.kvstore.hazelcast.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.MapPartitionLostListener;
import java.nio.FloatBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.depengine.kvstore.Checkpoint;
import java.util.function.Supplier;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.state.InitOp;
import org.depengine.kvstore.hazelcast.state.KeyOp;
import org.depengine.kvstore.hazelcast.state.KeyState;
import org.depengine.kvstore.hazelcast.state.LiveEndpoints;
import org.depengine.kvstore.hazelcast.state.PushOp;
import org.depengine.kvstore.hazelcast.state.RankOp;
import org.depengine.kvstore.hazelcast.state.ReadOp;
import org.depengine.kvstore.hazelcast.state.Reply;
import org.depengine.kvstore.hazelcast.state.ToldRanks;
import org.depengine.kvstore.spi.Rounds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's view of a distributed key → float array table: every call is asynchronous and
 * completes from Hazelcast's callbacks, so no caller's thread waits on the network.
 *
 * <p>Keys live in an {@code IMap} sharded over the members by partition; a key longer than
 * {@code chunkFloats} is split into chunks (map keys {@code key#0}, {@code key#1}, ..., with {@code \}
 * and {@code #} in the key escaped) that hash to different partitions. Every change to a key runs as an entry processor on its owner.
 *
 * <p>A read that is not ready yet (its round has not completed, or the init has not landed) waits
 * for the map's entry events on that key and is retried on each (and, as a backstop for events
 * Hazelcast drops, every second: {@link PendingReads}). It fails once the key has shown no progress
 * for the timeout, or as soon as the key's owner reports that the round can no longer
 * complete because a worker left the cluster (this class tells the owners, from its membership
 * listener). The owner stores a key's state (so that the listeners hear of it) only when a change may
 * make such a waiting read ready: a round completes while a read waits for it, an init lands, a rank
 * ends its data or is lost. A push that completes a round brings the round's value back in its reply,
 * and this worker's pull of that round takes it without a call. A round's event goes only to the ranks
 * that wait for it ({@code ToldRanks}); a push that leaves its round pending marks its rank waiting,
 * and for a chunk of at most {@code KeyState.VALUE_EVENT_FLOATS} the event carries the state, from
 * which this worker's pull of that round takes the value, again without a call.
 *
 * <p>One job, one table: the maps are named by the job id. Opening a table whose maps hold the state
 * of an earlier job (no rank in them is registered by a live worker) is refused; a worker that closes
 * normally ends its part in every round to come (they complete without it), marks its rank closed (so
 * the others do not report it as lost when its member leaves), and the last one to close destroys the
 * maps.
 *
 * <p>Thread-safe. Rounds are the caller's ({@link Rounds}).
 */
public final class ShardedTable implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShardedTable.class);
    private static final char CHUNK = '#';
    /** The key barriers are rounds of: a name no user key can clash with (they are never empty strings with NUL). */
    private static final String BARRIER = "\u0000barrier";
    /**
     * What a worker that closed normally leaves in its rank's entry, before its id: positive evidence for
     * the others, whereas an entry that is gone may have been lost with its member's partitions.
     */
    private static final String CLOSED = "closed ";
    /** The key of {@link #shared} under which rank 0 publishes the period it resumed from (-1: none). */
    private static final String RESUMED_PERIOD = "resumedPeriod";

    private final HazelcastInstance hz;
    private final IMap<String, KeyState> map;
    private final IMap<Integer, String> ranks;
    /** The job's settings that every worker must share, set by the first worker to open: numWorkers. */
    private final IMap<String, Integer> shared;
    private final int rank;
    private final int workers;
    private final boolean async;
    private final int chunkFloats;
    private final Duration timeout;
    private final Duration joinTimeout;
    /** The calls' timeouts ({@link CallDeadlines}), the reads' rechecks and the loss reports. */
    private final ScheduledThreadPoolExecutor timer;
    private final CallDeadlines deadlines;
    private long barriers;
    private final Map<String, Integer> lengths = new ConcurrentHashMap<>();
    private final PendingReads reads;
    private final Map<UUID, Integer> rankOfMember = new ConcurrentHashMap<>();
    private final UUID mapListener;
    private final UUID mapNoValueListener;
    private final UUID ranksListener;
    private final UUID membershipListener;
    private final UUID partitionLostListener;
    private final String jobId;
    private final String clusterName;
    /** This worker's registration in {@link #ranks}, once made: what a normal close removes. */
    private volatile String registeredAs;
    private final AtomicBoolean closing = new AtomicBoolean();
    /** The ranks whose members this worker saw leave its cluster, closed or not: rank → the member's address. */
    private final Map<Integer, String> departed = new ConcurrentHashMap<>();
    /** The ranks this worker saw leave the cluster without closing their store: rank → why. */
    private final Map<Integer, String> lostRanks = new ConcurrentHashMap<>();
    /**
     * {@code dist_sync}, once a rank is lost: per chunk, its owner's answer to the loss (the last round
     * that can still complete, and why no later one can). A call of a later round fails at once instead
     * of calling the owner: after a loss, each of a worker's queued ops would otherwise make its own
     * call just to learn it.
     */
    private final Map<String, CompletableFuture<Reply>> lossLimits = new ConcurrentHashMap<>();
    private volatile String closedBecause;
    /**
     * {@code dist_sync}: per chunk, the reply of this worker's push that completed the chunk's latest round
     * (it carries the round's value), until this worker's pull of that round takes it: that pull then makes
     * no call. At most one value per chunk; a later completing push replaces it.
     */
    private final Map<String, Reply> completedByPush = new ConcurrentHashMap<>();
    /**
     * {@code dist_sync}, chunks of at most {@link KeyState#VALUE_EVENT_FLOATS}: per chunk, the round this
     * worker's push left pending (the owner then marked this rank waiting for it), until this worker's pull
     * of that round takes it: that pull waits for the round's event, which brings the value, and makes no
     * call first.
     */
    private final Map<String, Long> leftPending = new ConcurrentHashMap<>();
    /** The period of the checkpoint the job resumed from (rank 0's, learned by every rank at open), or -1. */
    private int resumedPeriod = -1;

    /**
     * Joins the table {@code settings.jobId()} as {@code rank} of {@code workers} and waits (up to the
     * timeout) until every rank has joined.
     *
     * @throws IllegalArgumentException if the rank is out of range or taken by a live worker
     * @throws KVStoreException if the maps hold an earlier job's state, or not every rank joined within the
     *     join timeout
     */
    public ShardedTable(HazelcastInstance hz, ClusterSettings settings, int rank, int workers, boolean async) {
        this(hz, settings, rank, workers, async, null);
    }

    /**
     * As {@link #ShardedTable(HazelcastInstance, ClusterSettings, int, int, boolean)}, for a job that
     * resumes from a checkpoint when {@code resumePeriod} is not null: rank 0 passes the checkpoint's
     * period and publishes it, the other ranks pass any value and learn it ({@link #resumedPeriod()}). A
     * resuming job takes over maps an earlier job left (rank 0 clears them) instead of refusing them.
     *
     * @throws IllegalArgumentException also if this rank resumes and rank 0 does not, or the reverse
     */
    public ShardedTable(HazelcastInstance hz, ClusterSettings settings, int rank, int workers, boolean async,
                        Integer resumePeriod) {
        if (workers < 1 || rank < 0 || rank >= workers) {
            throw new IllegalArgumentException("rank " + rank + " of " + workers + " workers: the rank must be 0.."
                    + (workers - 1) + " and there must be at least one worker (depengine.kvstore.rank, depengine.kvstore.workers)");
        }
        this.hz = hz;
        this.rank = rank;
        this.workers = workers;
        this.async = async;
        this.chunkFloats = settings.chunkFloats();
        this.timeout = settings.timeout();
        this.joinTimeout = settings.joinTimeout();
        this.jobId = settings.jobId();
        this.clusterName = settings.clusterName();
        String name = ClusterNode.MAP_PREFIX + settings.jobId();
        map = hz.getMap(name);
        ranks = hz.getMap(name + ClusterNode.RANKS_SUFFIX);
        shared = hz.getMap(name + ".shared");
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "kvstore-" + settings.jobId() + "-rank" + rank);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        reads = new PendingReads(map, timer, (key, what, cause) -> failure(key, what, cause, null), () -> closedBecause);
        deadlines = new CallDeadlines(timer);
        // Only the events of stores that tell this rank; those of small chunks carry the state (the value).
        mapListener = map.addEntryListener(reads, ToldRanks.withValue(rank), true);
        mapNoValueListener = map.addEntryListener(reads, ToldRanks.withoutValue(rank), false);
        CountDownLatch allJoined = new CountDownLatch(1);
        ranksListener = ranks.addEntryListener((EntryAddedListener<Integer, String>) e -> {
            rankOfMember.put(UUID.fromString(e.getValue()), e.getKey());
            if (ranks.size() >= workers) {
                allJoined.countDown();
            }
        }, true);
        membershipListener = hz.getCluster().addMembershipListener(new Membership());
        partitionLostListener = map.addPartitionLostListener((MapPartitionLostListener) e -> partitionLost(e.getPartitionId()));
        UUID me = hz.getLocalEndpoint().getUuid();
        try {
            refuseAnEarlierJobsState(resumePeriod != null);
            refuseAnotherNumberOfWorkers();
            if (rank == 0) {
                resumedPeriod = resumePeriod == null ? -1 : resumePeriod;
                shared.put(RESUMED_PERIOD, resumedPeriod); // before the registration others wait for
            }
            register(me);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        for (Map.Entry<Integer, String> e : ranks.entrySet()) {
            rankOfMember.put(UUID.fromString(e.getValue()), e.getKey());
        }
        if (ranks.size() >= workers) {
            allJoined.countDown();
        }
        try {
            if (!allJoined.await(settings.joinTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                KVStoreException e = new KVStoreException(null, rank, "only ranks " + new TreeMap<>(ranks).keySet() + " of "
                        + workers + " workers joined table '" + settings.jobId() + "' within "
                        + settings.joinTimeout().toMillis() + " ms; start the others with the same "
                        + "depengine.kvstore.members, clusterName and jobId" + missingMembers(settings), null);
                close(); // after the message: leaving may destroy the maps
                throw e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new KVStoreException(null, rank, "interrupted while waiting for the other workers", e);
        }
        if (rank != 0) {
            learnResumedPeriod(resumePeriod != null);
        }
        init(BARRIER, new float[0]);
    }

    /** Every worker resumes, or none: a worker that does not would start its rounds in another period. */
    private void learnResumedPeriod(boolean resuming) {
        Integer p = shared.get(RESUMED_PERIOD);
        resumedPeriod = p == null ? -1 : p;
        if (resuming != resumedPeriod >= 0) {
            IllegalArgumentException e = new IllegalArgumentException("rank " + rank + " of job '" + jobId + "' was opened "
                    + (resuming ? "with" : "without") + " depengine.kvstore.resume, rank 0 "
                    + (resuming ? "without it" : "with it (a checkpoint of period " + resumedPeriod + ")")
                    + ": give every worker of a resumed job the resume setting (rank 0 reads the file)");
            close();
            throw e;
        }
    }

    /** The period of the checkpoint the job resumed from (as rank 0 read it), or -1 if it did not resume. */
    public int resumedPeriod() {
        return resumedPeriod;
    }

    /**
     * Refuses maps that hold state while no rank in them belongs to a live worker: an earlier job's, left
     * by workers that crashed (a job whose workers all close normally destroys its maps). A rank
     * registered by a live worker means the job is running: this worker joins it (a restarted one rejoins).
     */
    private void refuseAnEarlierJobsState(boolean resuming) {
        Map<Integer, String> registered = new TreeMap<>(ranks);
        if (registered.isEmpty() && map.isEmpty()) {
            return;
        }
        Set<String> live = liveEndpoints();
        if (registered.values().stream().anyMatch(live::contains)) {
            return;
        }
        if (resuming) {
            // A resumed job replaces the earlier job's state. Rank 0 clears it before it registers, which
            // every other rank waits for before its first call; only the gone workers' ranks are removed,
            // so a rank of this job that registered meanwhile stays.
            if (rank == 0) {
                LOG.info("rank 0: job '{}' resumes from a checkpoint: clearing the state an earlier job left in '{}'",
                        jobId, map.getName());
                map.clear();
                shared.clear();
                registered.forEach(ranks::remove);
            }
            return;
        }
        throw new KVStoreException(null, rank, "store '" + jobId + "' on cluster '" + clusterName + "' (maps '"
                + map.getName() + "' and '" + ranks.getName() + "') holds the state of an earlier job: "
                + (registered.isEmpty() ? "keys, and no worker registered" : "ranks " + registered.keySet()
                + " were registered by workers that are gone")
                + "; start this job with a new job id (depengine.kvstore.jobId), or continue the earlier job from "
                + "its checkpoint with depengine.kvstore.resume=<checkpoint file> on every worker (its state then "
                + "replaces what the maps hold)", null);
    }

    /** Every worker of a job counts the same workers: a mismatch would size the keys' rounds differently. */
    private void refuseAnotherNumberOfWorkers() {
        Integer first = shared.putIfAbsent("numWorkers", workers);
        if (first != null && first != workers) {
            throw new IllegalArgumentException("rank " + rank + " opened job '" + jobId + "' with numWorkers=" + workers
                    + ", but the workers that opened it first have numWorkers=" + first
                    + ": give every worker of a job the same depengine.kvstore.numWorkers");
        }
    }

    /**
     * Why workers may be missing when this member's cluster lacks some of the listed members: they are
     * not running, or they run under another cluster name (Hazelcast then refuses the join both ways,
     * logging only that the names differ, not the other name).
     */
    private String missingMembers(ClusterSettings settings) {
        int found = hz.getCluster().getMembers().size();
        if (settings.client() || found >= settings.members().size()) {
            return "";
        }
        return "; this worker's cluster '" + clusterName + "' has " + found + " of the " + settings.members().size()
                + " members listed in depengine.kvstore.members " + settings.members() + ": the others are not running,"
                + " or they run with another depengine.kvstore.clusterName and refuse this one's join (Hazelcast logs"
                + " 'the target cluster has a different cluster-name')";
    }

    /** The ids of the live members and clients, asked of a member (only members see the clients). */
    private Set<String> liveEndpoints() {
        try {
            return new HashSet<>(hz.getExecutorService("depengine.liveness").submit(new LiveEndpoints())
                    .get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank, "interrupted while listing the cluster's workers", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KVStoreException(null, rank, "cannot list the live workers of cluster '" + clusterName + "'", e);
        }
    }

    private void register(UUID me) {
        String previous = ranks.putIfAbsent(rank, me.toString());
        if (previous != null && !previous.equals(me.toString())) {
            if (liveEndpoints().contains(previous)) {
                throw new IllegalArgumentException("rank " + rank + " of job '" + jobId + "' is already taken by the live "
                        + "worker " + previous + ": give each worker its own depengine.kvstore.rank (and each job its own "
                        + "depengine.kvstore.jobId)");
            }
            ranks.put(rank, me.toString()); // left by a worker of this job that is gone: a restarted worker rejoins
        }
        registeredAs = me.toString();
    }

    /** This worker's rank. */
    public int rank() {
        return rank;
    }

    /** The number of workers. */
    public int workers() {
        return workers;
    }

    /**
     * Declares {@code key} with {@code value}'s length; rank 0 also stores {@code value} as the key's
     * first version (an init that finds the key initialised changes nothing). Other ranks store nothing:
     * their first pull waits for rank 0's init.
     */
    public CompletableFuture<Void> init(String key, float[] value) {
        Integer known = lengths.putIfAbsent(key, value.length);
        if (known != null && known != value.length) {
            return CompletableFuture.failedFuture(new KVStoreException(key, rank, "init with " + value.length
                    + " floats: it was initialised with " + known, null));
        }
        if (rank != 0) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        forEachChunk(key, value.length, (chunkKey, off, len) -> parts.add(call(chunkKey,
                new InitOp(key, off, workers, asyncFor(key), slice(value, off, len)), key, "init")));
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    /**
     * Rank 0's init of a key resumed from a checkpoint: its value, the updater state ({@code stateFloats}
     * per element, slot after slot over the whole key) and update count, as of {@code round}; each chunk
     * gets its slice of every slot. Other ranks only declare the key, as {@link #init(String, float[])}.
     */
    public CompletableFuture<Void> initResumed(String key, float[] value, int stateFloats, float[] state, long steps,
                                               long round) {
        if (rank != 0) {
            return init(key, value);
        }
        Integer known = lengths.putIfAbsent(key, value.length);
        if (known != null && known != value.length) {
            return init(key, value); // fails naming both lengths
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        forEachChunk(key, value.length, (chunkKey, off, len) -> {
            float[] chunkState = new float[stateFloats * len];
            for (int j = 0; j < stateFloats; j++) {
                System.arraycopy(state, j * value.length + off, chunkState, j * len, len);
            }
            parts.add(call(chunkKey, InitOp.resumed(key, off, workers, asyncFor(key), slice(value, off, len), chunkState,
                    steps, round), key, "init"));
        });
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    /**
     * A checkpoint's read of {@code key}: its value, updater state (slot after slot over the whole key)
     * and update count once {@code round} has completed ({@code dist_async}: the latest), every chunk at
     * one round (else the read fails: the caller did not keep the checkpoint's contract).
     */
    public CompletableFuture<Checkpoint.Entry> snapshot(String key, long round) {
        int len = requireLength(key, -1, "checkpoint");
        String what = "checkpoint read as of round " + Rounds.text(round);
        Map<Integer, Reply> replies = new ConcurrentHashMap<>();
        List<CompletableFuture<?>> parts = new ArrayList<>();
        forEachChunk(key, len, (chunkKey, off, n) -> parts.add(reads.read(chunkKey,
                ReadOp.withState(key, off, workers, asyncFor(key), rank, round), key, what, timeout)
                .thenAccept(reply -> replies.put(off, reply))));
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
            float[] value = new float[len];
            Reply first = replies.values().iterator().next();
            int stateFloats = first.state().length / first.value().length;
            float[] state = new float[stateFloats * len];
            for (Map.Entry<Integer, Reply> e : replies.entrySet()) {
                int off = e.getKey();
                Reply r = e.getValue();
                int n = r.value().length;
                if (r.steps() != first.steps() || r.state().length != stateFloats * n
                        || (!asyncFor(key) && r.round() != first.round())) {
                    throw failure(key, what, "its chunks are at different rounds or steps (" + Rounds.text(first.round())
                            + " and " + Rounds.text(r.round()) + "): a worker pushed between the barriers around the "
                            + "checkpoint", null);
                }
                System.arraycopy(r.value(), 0, value, off, n);
                for (int j = 0; j < stateFloats; j++) {
                    System.arraycopy(r.state(), j * n, state, j * len + off, n);
                }
            }
            return new Checkpoint.Entry(key, value, stateFloats, state, first.steps());
        });
    }

    /** Pushes this rank's {@code value} of {@code key} for round {@code round} (from 1), applied by {@code updater}. */
    public CompletableFuture<Void> push(String key, long round, float[] value, Updater updater) {
        return push(key, round, value, updater, "round " + Rounds.text(round));
    }

    /** As {@link #push(String, long, float[], Updater)}, naming the round {@code label} in errors. */
    public CompletableFuture<Void> push(String key, long round, float[] value, Updater updater, String label) {
        return push(key, round, value.length, (off, n) -> slice(value, off, n), updater, label);
    }

    /**
     * As {@link #push(String, long, float[], Updater, String)}, with the value read from {@code value}
     * (absolute indices from 0, {@code value.limit()} floats): each chunk is copied once, straight into the
     * array its call sends. The caller keeps the buffer unchanged until the returned future completes.
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
        int len = requireLength(key, length, "push");
        String what = "push " + label;
        List<CompletableFuture<?>> parts = new ArrayList<>();
        forEachChunk(key, len, (chunkKey, off, n) -> parts.add(unlessLost(chunkKey, round, key, what, () -> call(chunkKey,
                new PushOp(key, off, workers, asyncFor(key), rank, round, values.chunk(off, n), updater), key, what))
                .thenAccept(reply -> {
                    if (reply.value() != null && closedBecause == null) {
                        completedByPush.put(chunkKey, reply);
                    } else if (!asyncFor(key) && reply.round() < round && n <= KeyState.VALUE_EVENT_FLOATS) {
                        leftPending.put(chunkKey, round);
                    }
                })));
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    /** Tells the owners that this rank's push of {@code round} was skipped (a failed producer): the round completes without it. */
    public CompletableFuture<Void> pushSkipped(String key, long round, String label) {
        int len = requireLength(key, -1, "push");
        List<CompletableFuture<?>> parts = new ArrayList<>();
        forEachChunk(key, len, (chunkKey, off, n) -> parts.add(call(chunkKey,
                PushOp.skipped(key, off, workers, rank, round), key, "skipped push " + label)));
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    /**
     * The value of {@code key} once round {@code round} has completed (round 0: once the init has landed;
     * {@code dist_async}: pass 0 and get the latest value after the init, chunk by chunk: each chunk of a
     * split key as its owner has it when read, so two chunks may hold different pushes of the other
     * workers; every push of this worker that completed before the pull is in every chunk).
     */
    public CompletableFuture<float[]> pull(String key, long round) {
        return pull(key, round, "round " + Rounds.text(round));
    }

    /** As {@link #pull(String, long)}, naming the round {@code label} in errors. */
    public CompletableFuture<float[]> pull(String key, long round, String label) {
        return pull(key, round, label, timeout).thenApply(ShardedTable::joined);
    }

    /**
     * As {@link #pull(String, long, String)}, writing the value into {@code target} (absolute indices from 0)
     * once every chunk has answered at one round: each chunk's reply is copied once, straight into its place,
     * and {@code target} is left unchanged if the pull fails.
     */
    public CompletableFuture<Void> pull(String key, long round, String label, FloatBuffer target) {
        return pull(key, round, label, timeout).thenAccept(chunks -> {
            for (int c = 0; c < chunks.values.length; c++) {
                target.put(c * chunks.chunkFloats, chunks.values[c]);
            }
        });
    }

    /** A pulled key's chunks, in order: each owner's reply array as it came (a key kept whole: one). */
    private record Chunks(float[][] values, int length, int chunkFloats) {
    }

    /** The chunks as one array: a key kept whole is its reply array itself, a split key a copy of its chunks. */
    private static float[] joined(Chunks chunks) {
        if (chunks.values.length == 1) {
            return chunks.values[0];
        }
        float[] out = new float[chunks.length];
        for (int c = 0; c < chunks.values.length; c++) {
            System.arraycopy(chunks.values[c], 0, out, c * chunks.chunkFloats, chunks.values[c].length);
        }
        return out;
    }

    /**
     * Reads every chunk of {@code key} as of {@code round}. In {@code dist_sync} the chunks must answer at
     * one round: a chunk can be ahead of another (a worker lost after pushing only some chunks of a
     * round, or rounds going on after this worker's end of data), and its parts would make a value no
     * round ever had. Then every chunk is read again as of the newest round: they catch up, or the
     * lagging chunk's owner fails the read (naming the lost worker).
     */
    private CompletableFuture<Chunks> pull(String key, long round, String label, Duration waitTimeout) {
        int len = requireLength(key, -1, "pull");
        // Each chunk's reply array is kept as it came (a copy owned by this call): the caller copies it once.
        int count = Math.max(1, (len + chunkFloats - 1) / chunkFloats); // a barrier's 0 floats: 1 chunk
        float[][] values = new float[count][];
        long[] rounds = new long[count];
        String what = "pull " + label;
        String closed = closedBecause;
        if (closed != null) {
            return CompletableFuture.failedFuture(failure(key, what, closed, null));
        }
        List<CompletableFuture<?>> parts = new ArrayList<>();
        forEachChunk(key, len, (chunkKey, off, n) -> {
            // A read of a period's round 0 may be ready without the lost rank (it may have ended the period before).
            long needs = Rounds.index(round) == 0 ? 0 : round;
            Reply pushed = takeCompleted(chunkKey, round);
            boolean told = leftPending.remove(chunkKey, round);
            parts.add((pushed != null ? CompletableFuture.completedFuture(pushed) : unlessLost(chunkKey, needs, key, what,
                    () -> reads.read(chunkKey, new ReadOp(key, off, workers, asyncFor(key), rank, round), key, what,
                            waitTimeout, told)))
                    .thenAccept(reply -> {
                        values[off / chunkFloats] = reply.value();
                        rounds[off / chunkFloats] = reply.round();
                    }));
        });
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            long newest = Arrays.stream(rounds).max().orElse(round);
            if (asyncFor(key) || Arrays.stream(rounds).allMatch(r -> r == newest)) {
                return CompletableFuture.completedFuture(new Chunks(values, len, chunkFloats));
            }
            return pull(key, newest, label, waitTimeout);
        });
    }

    /**
     * The reply of this worker's push that completed round {@code round} of {@code chunkKey}, removed (its
     * value goes to one pull, and is not kept here after it), or null if no push of this worker completed
     * that round (or a later round completed since).
     */
    private Reply takeCompleted(String chunkKey, long round) {
        Reply r = completedByPush.get(chunkKey);
        return r != null && r.round() == round && completedByPush.remove(chunkKey, r) ? r : null;
    }

    /**
     * Tells every key's owner that this rank has no more data in {@code period}: that period's rounds
     * complete without it. (The barrier key is left out: barriers always wait for every rank.)
     */
    public CompletableFuture<Void> endOfData(int period) {
        return onAllKeys(RankOp.endOfData(workers, async, rank, period), "end of data", false);
    }

    /** {@link #endOfData(int)} of period 0. */
    public CompletableFuture<Void> endOfData() {
        return endOfData(0);
    }

    /**
     * A rendezvous of every rank: completes once every rank has called it as many times. The caller
     * bounds the wait; a lost rank fails it.
     */
    public synchronized CompletableFuture<Void> barrier() {
        long round = ++barriers;
        String label = "barrier " + round;
        return push(BARRIER, round, new float[0], null, label).thenCompose(v -> pull(BARRIER, round, label, joinTimeout))
                .thenApply(v -> null);
    }

    /** Runs {@code op} on every chunk this worker knows, one call per key (each retried by Hazelcast on the key's current owner). */
    private CompletableFuture<Void> onAllKeys(KeyOp op, String what, boolean withBarrier) {
        List<CompletableFuture<?>> parts = new ArrayList<>();
        for (String k : chunkKeys(withBarrier)) {
            parts.add(call(k, op, null, what));
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    private Set<String> chunkKeys(boolean withBarrier) {
        Set<String> keys = new HashSet<>();
        lengths.forEach((key, len) -> forEachChunk(key, len, (chunkKey, off, n) -> keys.add(chunkKey)));
        if (!withBarrier) {
            keys.remove(BARRIER);
        }
        return keys;
    }

    /**
     * Tells every key's owner (the barrier's included) that rank {@code lost} left without closing its
     * store, and keeps each owner's answer ({@link #lossLimits}).
     */
    private CompletableFuture<Void> reportLoss(int lost, String reason) {
        lostRanks.put(lost, reason);
        List<CompletableFuture<?>> parts = new ArrayList<>();
        for (String k : chunkKeys(true)) {
            CompletableFuture<Reply> answer = call(k, RankOp.lost(workers, async, lost, reason), null, "report of lost rank " + lost);
            lossLimits.put(k, answer);
            parts.add(answer);
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    /**
     * {@code dist_sync}, once a rank is known lost: runs {@code call}, which needs round {@code round} of
     * {@code chunkKey} to complete (0: needs no round), unless that round can no longer complete; then
     * fails it at once, naming the lost rank and why. The chunk's owner is asked once (a loss report of
     * each lost rank; its answer is kept) for the chunks not reported to when the loss was seen.
     */
    private <T> CompletableFuture<T> unlessLost(String chunkKey, long round, String key, String what,
            Supplier<CompletableFuture<T>> call) {
        if (round == 0 || asyncFor(key) || lostRanks.isEmpty()) {
            return call.get();
        }
        CompletableFuture<Reply> limit = lossLimits.computeIfAbsent(chunkKey, k -> {
            List<CompletableFuture<Reply>> answers = new ArrayList<>();
            lostRanks.forEach((lost, why) -> answers.add(call(k, RankOp.lost(workers, false, lost, why), null,
                    "report of lost rank " + lost)));
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
                return CompletableFuture.failedFuture(failure(key, what, answer.message() + "; no round of this key after "
                        + Rounds.text(answer.round()) + " can complete (failed without calling the key's owner)", null));
            }
            return call.get();
        });
    }

    /** Barriers are sync rounds in either mode. */
    private boolean asyncFor(String key) {
        return async && !key.equals(BARRIER);
    }

    private int requireLength(String key, int length, String what) {
        Integer known = lengths.get(key);
        if (known == null) {
            throw new IllegalArgumentException(what + " of unknown key '" + key + "' (rank " + rank + "): init it first");
        }
        if (length >= 0 && known != length) {
            throw new IllegalArgumentException(what + " of key '" + key + "' with " + length + " floats: it holds " + known);
        }
        return known;
    }

    private CompletableFuture<Reply> call(String chunkKey, KeyOp op, String key, String what) {
        String closed = closedBecause;
        if (closed != null) {
            return CompletableFuture.failedFuture(failure(key, what, closed, null));
        }
        CompletableFuture<Reply> f = new CompletableFuture<>();
        CallbackThreads.submitToKey(map, chunkKey, op).whenCompleteAsync((reply, err) -> {
            if (err != null) {
                String refused = UpdaterClasses.refusal(err);
                f.completeExceptionally(failure(key, what, refused != null ? refused : err.toString(), err));
            } else if (reply.status() == Reply.Status.ERROR) {
                f.completeExceptionally(failure(key, what, reply.message(), null));
            } else {
                f.complete(reply);
            }
        }, CallbackThreads.ON_RESPONSE_THREAD);
        if (timer.isShutdown()) {
            f.completeExceptionally(failure(key, what, "the store is closing", null));
        } else {
            deadlines.add(f, timeout.toMillis(), () -> f.completeExceptionally(failure(key, what,
                    "no answer from the key's owner within " + timeout.toMillis() + " ms (depengine.kvstore.timeoutMs)", null)));
        }
        return f;
    }

    private KVStoreException failure(String key, String what, String cause, Throwable err) {
        return new KVStoreException(BARRIER.equals(key) ? null : key, rank, what + ": " + cause, err);
    }

    /** A member that held a rank left: tell every key's owner, so the rounds it will never push fail. */
    private final class Membership implements MembershipListener {
        @Override
        public void memberAdded(MembershipEvent e) {
            // A restarted member gets its partitions back from the backups; nothing to do here.
        }

        @Override
        public void memberRemoved(MembershipEvent e) {
            Member m = e.getMember();
            Integer lost = rankOfMember.get(m.getUuid());
            if (lost == null || closedBecause != null) {
                return;
            }
            departed.put(lost, m.getAddress().toString());
            String reason = "worker rank " + lost + " (member " + m.getAddress() + ") left the cluster";
            // Off Hazelcast's event thread: the calls below go to the keys' owners.
            timer.execute(() -> {
                try {
                    if ((CLOSED + m.getUuid()).equals(ranks.get(lost))) {
                        LOG.debug("rank {}: rank {} closed normally before its member {} left", rank, lost, m.getAddress());
                        return;
                    }
                    if (closing.get()) {
                        // This worker's own close settles its reads; the last closer may already have
                        // destroyed the ranks map, so the other rank's normal close is not readable.
                        LOG.debug("rank {}: rank {} (member {}) left while this store closes", rank, lost, m.getAddress());
                        return;
                    }
                    LOG.warn("rank {}: {}; its rounds that are still open will fail", rank, reason);
                    reportLoss(lost, reason).exceptionally(err -> {
                        if (closing.get()) {
                            LOG.debug("rank {}: loss of rank {} not reported, the store closed: {}", rank, lost, err.toString());
                        } else {
                            LOG.warn("rank {}: could not report the loss of rank {}: {}", rank, lost, err.toString());
                        }
                        reads.failAll(reason);
                        return null;
                    });
                } catch (RuntimeException err) {
                    LOG.warn("rank {}: could not report the loss of rank {}: {}", rank, lost, err.toString());
                    reads.failAll(reason);
                }
            });
        }
    }

    /**
     * Every copy of a partition of the job's keys was on members that left this worker's cluster: its
     * side holds only part of the job's state (the lost partitions come back empty), as when this worker
     * is cut off from the others (a network split) or several members crashed together. It fails its
     * waiting reads and every call to come at once, naming the ranks that left, instead of going on with
     * keys reset to nothing (or waiting for the call timeout on keys the others will never push to on
     * this side). The members on the other side of a split, which lose no partition (each had a copy
     * among them), fail the rounds of this worker's rank from their membership listener.
     */
    private void partitionLost(int partition) {
        if (closedBecause != null) {
            return;
        }
        Map<Integer, String> gone = departedRanks();
        StringBuilder who = new StringBuilder();
        gone.forEach((r, member) -> who.append(who.length() == 0 ? "" : ", ").append("worker rank ").append(r)
                .append(" (member ").append(member).append(')'));
        String reason = (gone.isEmpty() ? "members" : who) + " left the cluster, and with " + (gone.size() == 1 ? "it" : "them")
                + " every copy of partition " + partition + " of job '" + jobId + "': the job's state on this side is"
                + " incomplete (is this worker cut off from the others: host unreachable, a network split?) and it cannot"
                + " go on";
        LOG.error("rank {}: {}", rank, reason);
        closedBecause = reason;
        reads.failAll(reason);
    }

    /**
     * The ranks whose members left this worker's cluster, with their addresses; if no event said so yet,
     * the registered ranks whose members are not in it (with their ids).
     */
    private Map<Integer, String> departedRanks() {
        Map<Integer, String> gone = new TreeMap<>(departed);
        if (gone.isEmpty()) {
            Set<UUID> present = new HashSet<>();
            hz.getCluster().getMembers().forEach(m -> present.add(m.getUuid()));
            rankOfMember.forEach((id, r) -> {
                if (!present.contains(id)) {
                    gone.put(r, id.toString());
                }
            });
        }
        return gone;
    }

    /**
     * Leaves the job (see the class comment: this worker's rounds to come complete without it, its rank
     * is marked closed, the last worker destroys the maps), then stops listening and fails the reads still
     * waiting ("table closed"). The Hazelcast instance is the caller's to shut down. Idempotent; a
     * table whose cluster is gone closes too (the leaving is bounded by the join timeout, then logged).
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        if (registeredAs != null) {
            try {
                timer.submit(this::leave).get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("rank {}: interrupted while leaving job '{}'", rank, jobId);
            } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
                LOG.warn("rank {}: could not leave job '{}' cleanly (its maps may stay): {}", rank, jobId, e.toString());
            }
        }
        closedBecause = "the store was closed";
        completedByPush.clear();
        leftPending.clear();
        reads.failAll(closedBecause);
        try {
            map.removeEntryListener(mapListener);
            map.removeEntryListener(mapNoValueListener);
            ranks.removeEntryListener(ranksListener);
            hz.getCluster().removeMembershipListener(membershipListener);
            map.removePartitionLostListener(partitionLostListener);
        } catch (RuntimeException e) {
            LOG.debug("rank {}: removing listeners at close: {}", rank, e.toString()); // the instance may be gone already
        }
        timer.shutdownNow();
    }

    /** A normal close's part in the cluster: end this rank's rounds to come, mark the rank closed, destroy the maps if last. */
    private Void leave() throws Exception {
        // Barriers wait for every rank, in either mode: the ones to come fail at once on the others.
        call(BARRIER, RankOp.lost(workers, false, rank, "rank " + rank + " closed its store normally; a barrier needs all "
                + workers + " workers"), null, "close").get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!async) {
            onAllKeys(RankOp.endOfData(workers, false, rank, Integer.MAX_VALUE), "end of data at close", false)
                    .get(joinTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        ranks.replace(rank, registeredAs, CLOSED + registeredAs);
        if (ranks.values().stream().allMatch(v -> v.startsWith(CLOSED))) {
            LOG.debug("rank {}: the last worker of job '{}' to close: destroying its maps", rank, jobId);
            map.destroy();
            ranks.destroy();
            shared.destroy();
        }
        return null;
    }

    @FunctionalInterface
    private interface ChunkAction {
        void accept(String chunkKey, int offset, int length);
    }

    /**
     * Calls {@code action} with the map key, offset and length of each chunk of {@code key}. The map key
     * of a key kept whole is the key with {@code \} and {@code #} escaped by a {@code \}; a chunk's is
     * that, {@code #} and the chunk's number. So no user key can name another key's chunk ({@code w#1}
     * is not chunk 1 of {@code w}).
     */
    private void forEachChunk(String key, int length, ChunkAction action) {
        String escaped = key.replace("\\", "\\\\").replace("#", "\\#");
        if (length <= chunkFloats) {
            action.accept(escaped, 0, length);
            return;
        }
        for (int c = 0, off = 0; off < length; c++, off += chunkFloats) {
            action.accept(escaped + CHUNK + c, off, Math.min(chunkFloats, length - off));
        }
    }

    private static float[] slice(float[] value, int off, int len) {
        if (off == 0 && len == value.length) {
            return value;
        }
        float[] s = new float[len];
        System.arraycopy(value, off, s, 0, len);
        return s;
    }
}
