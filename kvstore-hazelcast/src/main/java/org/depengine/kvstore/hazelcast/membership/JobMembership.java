package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.ListenerRemovals;
import org.depengine.kvstore.hazelcast.hz.LiveEndpoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's place in its job (ps-lite's {@code Postoffice}): which rank it is, who the others are, and
 * who is gone. It joins the job's ranks map, agrees with the others on {@code numWorkers} and the period a
 * resumed job starts in, waits until every rank has joined, learns of a rank that leaves without closing
 * (a member's departure seen by its membership listener, or a client's reported by the members), and
 * leaves at close: a worker that closed normally marks its rank closed, so it is never reported lost, and
 * the job's last worker to close destroys the job's maps, in the order {@link LeavingOrder} gives.
 *
 * <p>What the job shares lives in two maps named by the job id: {@code ranks} (rank → the id of the live
 * member or client that holds it, {@code "closed <id>"} once it closed) and {@code shared} (the job's
 * {@code numWorkers}, rank 0's resumed period, each rank's data address, a refusal rank 0 published, and
 * {@link LeavingOrder}'s entries).
 *
 * <p>Thread-safe. Loss listeners run on the membership's own thread, never on Hazelcast's event threads.
 */
public final class JobMembership implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobMembership.class);
    /** What a worker that closed normally leaves in its rank's entry, before its id. */
    static final String CLOSED = "closed ";
    static final String NUM_WORKERS = "numWorkers";
    private static final String RESUMED_PERIOD = "resumedPeriod";
    private static final String REFUSED = "refused";
    private static final long REFUSAL_POLL_MS = 500;
    /** Where the members report a client worker lost ({@link ClientLossReporter}): {@code lost.<rank>} → why. */
    static final String LOST = "lost.";

    /** Told when a rank is lost (it left without closing its store). */
    @FunctionalInterface
    public interface LossListener {
        /** Rank {@code rank} is lost, because {@code why} (a message naming it and its member). */
        void lost(int rank, String why);
    }

    private final HazelcastInstance hz;
    private final ClusterSettings settings;
    private final int rank;
    private final int workers;
    private final boolean joining;
    private final String jobId;
    private final IMap<Integer, String> ranks;
    private final IMap<String, String> shared;
    private final Executor events;
    private final Map<UUID, Integer> rankOfMember = new ConcurrentHashMap<>();
    /** The ranks whose members this worker saw leave its cluster, closed or not: rank → the member's address. */
    private final Map<Integer, String> departed = new ConcurrentHashMap<>();
    /** The ranks this worker saw leave the cluster without closing their store: rank → why. */
    private final Map<Integer, String> lostRanks = new ConcurrentHashMap<>();
    private final List<LossListener> listeners = new CopyOnWriteArrayList<>();
    private final UUID ranksListener;
    private final UUID membershipListener;
    private final UUID reportsListener;
    private final LeavingOrder leaving;
    private volatile String registeredAs;
    private volatile boolean closing;
    private int resumedPeriod = -1;

    /**
     * Joins job {@code settings.jobId()} as {@code settings.rank()}, and waits (up to the join timeout)
     * until every rank has joined; or, {@code joining}, registers as a joiner of the running job
     * ({@link Joining}: this worker's {@link #rank()} is then its place, after the job's first view's ranks).
     *
     * @param resumePeriod rank 0: the period of the checkpoint it resumes from, or null; other ranks: any
     *     value to say they resume, null to say they do not
     * @param refusal rank 0: why it cannot start (a checkpoint it cannot read), published for the other
     *     ranks, which then fail with it instead of waiting; null otherwise
     * @param events runs the loss listeners and the calls they make (off Hazelcast's event threads)
     * @param joining whether this worker joins a running elastic job
     * @param givenWorkers a joiner's own numWorkers, or -1 if it gave none
     * @throws IllegalArgumentException if the rank is taken by a live worker, or the workers disagree on
     *     numWorkers or on resuming
     * @throws KVStoreException if the maps hold an earlier job's state, rank 0 refused to start, or not every
     *     rank joined within the join timeout; a joiner, if no job of its id runs
     */
    public JobMembership(HazelcastInstance hz, ClusterSettings settings, Integer resumePeriod, String refusal,
                         Executor events, boolean joining, int givenWorkers) {
        this.hz = hz;
        this.settings = settings;
        this.jobId = settings.jobId();
        this.events = events;
        this.joining = joining;
        String name = ClusterNode.MAP_PREFIX + jobId;
        ranks = hz.getMap(name + ClusterNode.RANKS_SUFFIX);
        shared = hz.getMap(name + ClusterNode.SHARED_SUFFIX);
        Joining joined = joining ? Joining.register(ranks, shared, hz.getLocalEndpoint().getUuid().toString(), jobId,
                settings.clusterName(), givenWorkers) : null;
        this.rank = joining ? joined.place() : settings.rank();
        this.workers = joining ? joined.workers() : settings.numWorkers();
        leaving = new LeavingOrder(hz, shared, rank, workers, jobId);
        CountDownLatch allJoined = new CountDownLatch(1);
        CountDownLatch refused = new CountDownLatch(1);
        ranksListener = ranks.addEntryListener((EntryAddedListener<Integer, String>) e -> {
            rankOfMember.put(UUID.fromString(e.getValue()), e.getKey());
            if (ranks.size() >= workers) {
                allJoined.countDown();
            }
        }, true);
        UUID refusals = shared.addEntryListener((EntryAddedListener<String, String>) e -> {
            if (REFUSED.equals(e.getKey())) {
                refused.countDown();
                allJoined.countDown();
            }
        }, false);
        membershipListener = hz.getCluster().addMembershipListener(new Departures());
        // A client worker's loss is seen by the members, which report it here: every worker knows it at once,
        // whether or not any key's state exists yet.
        reportsListener = shared.addEntryListener((EntryAddedListener<String, String>) e -> {
            if (e.getKey().startsWith(LOST) && !closing) {
                int r = Integer.parseInt(e.getKey().substring(LOST.length()));
                events.execute(() -> reportLost(r, e.getValue()));
            }
        }, true);
        try {
            if (refusal != null) {
                // Kept for the join's timeout only: the ranks that come later in it fail with it, a restarted job does not.
                shared.put(REFUSED, "rank 0 refused to start job '" + jobId + "': " + refusal, settings.joinTimeoutMs(),
                        TimeUnit.MILLISECONDS);
                throw new KVStoreException(null, rank, refusal, null);
            }
            if (rank == 0) {
                shared.remove(REFUSED); // a refusal of an earlier start of this job, now started again
            }
            refuseAnEarlierJobsState(resumePeriod != null);
            if (joining) { // registered already; the elastic membership waits for the view that admits it
                registeredAs = hz.getLocalEndpoint().getUuid().toString();
                ranks.forEach((r, id) -> rankOfMember.put(UUID.fromString(id.replace(CLOSED, "")), r));
                shared.removeEntryListener(refusals);
                return;
            }
            refuseAnotherNumberOfWorkers();
            if (rank == 0) {
                resumedPeriod = resumePeriod == null ? -1 : resumePeriod;
                shared.put(RESUMED_PERIOD, Integer.toString(resumedPeriod)); // before the registration others wait for
            }
            register(hz.getLocalEndpoint().getUuid());
            for (Map.Entry<Integer, String> e : ranks.entrySet()) {
                if (!e.getValue().startsWith(CLOSED)) {
                    rankOfMember.put(UUID.fromString(e.getValue()), e.getKey());
                }
            }
            if (ranks.size() >= workers || shared.containsKey(REFUSED)) {
                allJoined.countDown();
            }
            awaitJoined(allJoined);
            if (rank != 0) {
                learnResumedPeriod(resumePeriod != null);
            }
        } catch (RuntimeException e) {
            shared.removeEntryListener(refusals);
            close();
            throw e;
        }
        shared.removeEntryListener(refusals);
    }

    private void awaitJoined(CountDownLatch allJoined) {
        try {
            // The listeners wake this at once; the map is read again every REFUSAL_POLL_MS too, because an entry
            // event is lost when its publisher leaves right after the put, as rank 0 does after its refusal.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.joinTimeoutMs());
            boolean joined = false;
            for (long left; !joined && (left = deadline - System.nanoTime()) > 0 && !shared.containsKey(REFUSED); ) {
                joined = allJoined.await(Math.min(REFUSAL_POLL_MS, TimeUnit.NANOSECONDS.toMillis(left) + 1),
                        TimeUnit.MILLISECONDS);
            }
            String refused = shared.get(REFUSED);
            if (refused != null) {
                throw new KVStoreException(null, rank, refused, null);
            }
            if (!joined) {
                throw new KVStoreException(null, rank, "only ranks " + new TreeMap<>(ranks).keySet() + " of " + workers
                        + " workers joined job '" + jobId + "' within " + settings.joinTimeoutMs() + " ms "
                        + "(depengine.kvstore.joinTimeoutMs); start the others with the same depengine.kvstore.members, "
                        + "clusterName and jobId" + missingMembers(), null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank, "interrupted while waiting for the other workers", e);
        }
    }

    /** Every worker resumes, or none: a worker that does not would start its rounds in another period. */
    private void learnResumedPeriod(boolean resuming) {
        String p = shared.get(RESUMED_PERIOD);
        resumedPeriod = p == null ? -1 : Integer.parseInt(p);
        if (resuming != resumedPeriod >= 0) {
            throw new IllegalArgumentException("rank " + rank + " of job '" + jobId + "' was opened "
                    + (resuming ? "with" : "without") + " depengine.kvstore.resume, rank 0 "
                    + (resuming ? "without it" : "with it (a checkpoint of period " + resumedPeriod + ")")
                    + ": give every worker of a resumed job the resume setting (rank 0 reads the file)");
        }
    }

    /**
     * Refuses maps that hold state while no rank in them belongs to a live worker: an earlier job's, left by
     * workers that crashed (a job whose workers all close normally destroys its maps). A rank registered by
     * a live worker means the job is running: this worker joins it (a restarted one rejoins).
     */
    private void refuseAnEarlierJobsState(boolean resuming) {
        Map<Integer, String> registered = new TreeMap<>(ranks);
        IMap<String, ?> keys = hz.getMap(ClusterNode.MAP_PREFIX + jobId);
        if (registered.isEmpty() && keys.isEmpty()) {
            return;
        }
        Set<String> live = liveEndpoints();
        if (registered.values().stream().anyMatch(live::contains)) {
            return;
        }
        if (resuming) {
            // A resumed job replaces the earlier job's state. Rank 0 clears it before it registers, which every
            // other rank waits for before its first call; only the gone workers' ranks are removed, so a rank
            // of this job that registered meanwhile stays.
            if (rank == 0) {
                LOG.info("rank 0: job '{}' resumes from a checkpoint: clearing the state an earlier job left in '{}'",
                        jobId, keys.getName());
                keys.clear();
                shared.clear();
                registered.forEach(ranks::remove);
            }
            return;
        }
        throw new KVStoreException(null, rank, "store '" + jobId + "' on cluster '" + settings.clusterName() + "' (maps '"
                + keys.getName() + "' and '" + ranks.getName() + "') holds the state of an earlier job: "
                + (registered.isEmpty() ? "keys, and no worker registered" : "ranks " + registered.keySet()
                + " were registered by workers that are gone")
                + "; start this job with a new job id (depengine.kvstore.jobId), or continue the earlier job from "
                + "its checkpoint with depengine.kvstore.resume=<checkpoint file> on every worker (its state then "
                + "replaces what the maps hold)", null);
    }

    /** Every worker of a job counts the same workers: a mismatch would size the keys' rounds differently. */
    private void refuseAnotherNumberOfWorkers() {
        String first = shared.putIfAbsent(NUM_WORKERS, Integer.toString(workers));
        if (first != null && Integer.parseInt(first) != workers) {
            throw new IllegalArgumentException("rank " + rank + " opened job '" + jobId + "' with numWorkers=" + workers
                    + ", but the workers that opened it first have numWorkers=" + first
                    + ": give every worker of a job the same depengine.kvstore.numWorkers");
        }
    }

    /**
     * Why workers may be missing when this member's cluster lacks some of the listed members: they are not
     * running, or they run under another cluster name (Hazelcast then refuses the join both ways, logging
     * only that the names differ, not the other name).
     */
    private String missingMembers() {
        int found = hz.getCluster().getMembers().size();
        if (settings.client() || found >= settings.members().size()) {
            return "";
        }
        return "; this worker's cluster '" + settings.clusterName() + "' has " + found + " of the "
                + settings.members().size() + " members listed in depengine.kvstore.members " + settings.members()
                + ": the others are not running, or they run with another depengine.kvstore.clusterName and refuse "
                + "this one's join (Hazelcast logs 'the target cluster has a different cluster-name')";
    }

    /** The ids of the live members and clients, asked of a member (only members see the clients). */
    private Set<String> liveEndpoints() {
        try {
            return new HashSet<>(hz.getExecutorService("depengine.liveness").submit(new LiveEndpoints())
                    .get(settings.joinTimeoutMs(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank, "interrupted while listing the cluster's workers", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KVStoreException(null, rank, "cannot list the live workers of cluster '" + settings.clusterName()
                    + "'", e);
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

    /** The job's workers: its first view's. */
    public int workers() {
        return workers;
    }

    /** Whether this worker registered as a joiner of a running job (its rank is then its place). */
    public boolean joining() {
        return joining;
    }

    /** The job's id. */
    public String jobId() {
        return jobId;
    }

    /** The settings this worker joined with. */
    public ClusterSettings settings() {
        return settings;
    }

    /** The period of the checkpoint the job resumed from (as rank 0 read it), or -1 if it did not resume. */
    public int resumedPeriod() {
        return resumedPeriod;
    }

    /** From now on this worker is leaving: a rank that leaves meanwhile is not reported lost. */
    public void markClosing() {
        closing = true;
    }

    /** Whether this worker is leaving (its store is closing). */
    public boolean closing() {
        return closing;
    }

    /** The ranks known lost, with why: a snapshot. */
    public Map<Integer, String> lostRanks() {
        return Map.copyOf(lostRanks);
    }

    /** Calls {@code l} for each rank lost from now on (and at once for those lost already). */
    public void onLoss(LossListener l) {
        listeners.add(l);
        lostRanks.forEach((r, why) -> events.execute(() -> l.lost(r, why)));
    }

    /** The workers' data addresses ({@code updateOn=worker}), read and published as this worker. */
    public DataAddresses dataAddresses() {
        return new DataAddresses(shared, rank, jobId, settings.joinTimeoutMs());
    }

    /**
     * The ranks whose members left this worker's cluster, with their addresses; if no event said so yet,
     * the registered ranks whose members are not in it (with their ids).
     */
    public Map<Integer, String> departedRanks() {
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

    /** Reports rank {@code r} lost (once): to the listeners, off the caller's thread. */
    public void reportLost(int r, String why) {
        if (lostRanks.putIfAbsent(r, why) == null) {
            for (LossListener l : listeners) {
                events.execute(() -> l.lost(r, why));
            }
        }
    }

    /**
     * Says that this worker shuts its member down when its store closes (it started an embedded member, not
     * a client nor a member the application keeps), so that the others order their leaving after it.
     */
    public void shutsMemberDownAtClose() {
        if (registeredAs != null) {
            leaving.announce(registeredAs);
        }
    }

    /**
     * Leaves the job: marks this worker's rank closed and, if it is the last to close, destroys the job's
     * maps (the keys' too), once the other workers' members but the master's have left (bounded). Call after
     * the store's own part of leaving (ending its rounds); the caller bounds the wait.
     *
     * @param departed an elastic job's: the members its views went on without, which never close their
     *     ranks (nor does any registered worker that has left the cluster: {@link LeavingOrder#everyRankDone});
     *     null for a fixed-size job, whose crashed worker leaves the maps (refused to the next job of its id)
     */
    public void leave(Set<String> departed) {
        closing = true;
        String me = registeredAs;
        if (me == null) {
            return;
        }
        leaving.readOthers();
        ranks.replace(rank, me, CLOSED + me);
        if (leaving.everyRankDone(ranks.values(), departed, this::liveEndpoints) && leaving.electLastCloser()) {
            leaving.awaitBeforeDestroy();
            LOG.debug("rank {}: the last worker of job '{}' to close: destroying its maps", rank, jobId);
            hz.getMap(ClusterNode.MAP_PREFIX + jobId).destroy();
            ranks.destroy();
            shared.destroy();
        }
    }

    /**
     * Shuts this worker's member down; a master first waits (bounded) until the other workers' members are
     * gone. Call after {@link #leave}, once the store needs the instance no more.
     */
    public void shutDownMember() {
        leaving.shutDown();
    }

    /** Whether this worker registered its rank (so it must leave at close). */
    public boolean registered() {
        return registeredAs != null;
    }

    /** A joiner that could not open: its registration goes, so that no view admits it. */
    public void withdraw() {
        if (joining && registeredAs != null) {
            ranks.remove(rank, registeredAs);
        }
    }

    /** Stops listening; the instance is the caller's. Idempotent. */
    @Override
    public void close() {
        closing = true;
        ListenerRemovals.removeEach(LOG, rank, () -> ranks.removeEntryListener(ranksListener),
                () -> shared.removeEntryListener(reportsListener),
                () -> hz.getCluster().removeMembershipListener(membershipListener));
    }

    /** A member that held a rank left without closing its store: that rank is lost. */
    private final class Departures implements MembershipListener {
        @Override
        public void memberAdded(MembershipEvent e) {
            // A restarted member gets its partitions back from the backups; nothing to do here.
        }

        @Override
        public void memberRemoved(MembershipEvent e) {
            leaving.memberLeft();
            Member m = e.getMember();
            Integer lost = rankOfMember.get(m.getUuid());
            if (lost == null || closing) {
                return;
            }
            departed.put(lost, m.getAddress().toString());
            String why = "worker rank " + lost + " (member " + m.getAddress() + ") left the cluster";
            // Off Hazelcast's event thread: reading the ranks map is a call.
            events.execute(() -> {
                try {
                    if ((CLOSED + m.getUuid()).equals(ranks.get(lost))) {
                        LOG.debug("rank {}: rank {} closed normally before its member {} left", rank, lost, m.getAddress());
                        return;
                    }
                } catch (RuntimeException err) {
                    if (closing) {
                        return; // the last closer may already have destroyed the ranks map
                    }
                    LOG.debug("rank {}: reading rank {}'s entry: {}", rank, lost, err.toString());
                }
                if (closing) {
                    // This worker's own close settles its calls; the last closer may already have destroyed the
                    // ranks map, so the other rank's normal close is not readable.
                    LOG.debug("rank {}: rank {} (member {}) left while this store closes", rank, lost, m.getAddress());
                    return;
                }
                LOG.warn("rank {}: {}; the rounds that need it fail (in an elastic job: a view without it follows)", rank, why);
                reportLost(lost, why);
            });
        }
    }
}
