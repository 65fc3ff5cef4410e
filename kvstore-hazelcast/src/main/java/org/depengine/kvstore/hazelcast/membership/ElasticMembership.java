package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.ListenerRemovals;
import org.depengine.kvstore.hazelcast.membership.ViewChange.Departure;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's part in an elastic job's views ({@code docs/elastic-design.md}, sections 2, 5 and 7), on top
 * of its {@link JobMembership} (who joined, who is lost) and a {@link ViewLog} (the views in the job's
 * {@code shared} map); the store hands each view to its data path ({@code ElasticJob}).
 *
 * <ul>
 *   <li><b>View 0</b>: the members' ids (the endpoint UUIDs {@link JobMembership} registers in the job's
 *       {@code ranks} map) in rank order, installed by whichever worker is first ({@link ViewLog#start}).
 *   <li><b>Losses</b>: each place {@link JobMembership} reports lost (a member that left the cluster, a client
 *       the members reported) is a member known lost here ({@link Places}: a rank of view 0, or a joiner); a
 *       view that drops a member this worker had not seen leave makes it known lost too.
 *   <li><b>The proposer</b> of the view after the installed view {@code v} is {@code v}'s lowest-ranked
 *       member not known lost. If that is this worker, it proposes {@code v} without every member of
 *       {@code v} known lost, on behalf of the others ({@link ViewLog#propose}); if another proposal won,
 *       it adopts it; while members of the installed view are known lost it goes on from there (a second
 *       loss during the first change ends in a view without both, by one or two epochs). A proposer that is
 *       lost itself is seen lost by the survivors, and the next-lowest proposes: no timer is needed.
 *   <li><b>Quorum</b> (embedded mode: the workers are the cluster's members): every worker checks, on each
 *       loss it learns, that the workers it still reaches hold the installed view's quorum
 *       ({@link View#heldBy}); a side that does not is cut off: its workers fail ("cut off from the job:
 *       this side has k of n workers ...") and install nothing. In client mode the cluster is the arbiter
 *       and no majority is needed ({@link ViewLog#propose(View, View, java.util.Collection, boolean)}).
 *   <li><b>Joiners</b> ({@code join=true}, {@link Joining}): when no member of the installed view is known
 *       lost, its proposer proposes it with the registered joiners appended, up to {@code maxWorkers}. A joiner
 *       takes no part in views before the one that admits it; a view full without it refuses it. A job whose
 *       data path admits no joiner says why in its {@code shared} map: its proposers admit none, and a joiner
 *       is refused at once.
 *   <li><b>minWorkers</b>: a view with fewer members is installed, but the job is paused; if no view with
 *       at least {@code minWorkers} members (joiners admitted) follows within {@code minWorkersWaitMs}
 *       ({@link PauseDeadline}), the job fails, naming who left and when.
 * </ul>
 *
 * <p>Delivery: the {@link Listener} gets every view installed after view 0, in epoch order, none skipped,
 * each once, then at most one failure, after which nothing more: the job was cut off, fell below
 * {@code minWorkers} for too long, or this worker was removed from a view (declared lost while alive, its
 * links cut). Calls run on the executor given, one at a time, never on Hazelcast's threads; a listener
 * that throws is logged.
 *
 * <p>Thread-safe.
 */
public final class ElasticMembership implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ElasticMembership.class);

    /** What an elastic worker is told: each view change in epoch order, then at most one failure. */
    public interface Listener {
        /**
         * View {@code change.epoch()} is installed and this worker is in it; {@link ElasticMembership#rank()}
         * and {@link ElasticMembership#numWorkers()} already answer its values.
         */
        void changed(ViewChange change);

        /** The job cannot go on here (cut off, below {@code minWorkers} too long, or this worker removed). */
        void failed(KVStoreException failure);
    }

    /**
     * A member known lost here: why, when this worker learned it (clock and nanos), and
     * whether its membership reported it (or only a view that dropped it told this worker).
     */
    private record Loss(String why, Instant at, long nanos, boolean reportedHere) {
    }

    private final JobMembership job;
    private final ElasticSettings settings;
    private final ScheduledExecutorService timer;
    private final Listener listener;
    private final String self;
    private final String name;
    private final boolean byMajority;
    private final ViewLog log;
    private final View first;
    /** Who holds each place (a rank of view 0, or a joiner's registration). */
    private final Places places;
    /** Taken around each call of the listener, and before {@link #lock}: the calls are one at a time, in order. */
    private final Object delivering = new Object();
    /** Guards the fields below. */
    private final Object lock = new Object();
    /** Members known lost (never this worker), in the order learned. */
    private final Map<String, Loss> lost = new LinkedHashMap<>();
    /** The last view delivered here; null while this worker waits to be admitted (a joiner). */
    private View applied;
    /** The highest view known installed (proposed, read or delivered): where the next proposal starts. */
    private View base;
    private boolean stepping;
    private boolean again;
    private KVStoreException failure;
    private boolean closed;
    private final PauseDeadline pause;
    private volatile int rank;
    private volatile int numWorkers;
    /** Why this job admits no joiner, or null where it admits them up to maxWorkers. */
    private final String noJoiners;


    /**
     * Sets this worker's part up: installs (or reads) view 0; {@link #start} then listens to the views and to
     * {@code job}'s losses. Call once {@code job} has started (every rank joined, or this joiner registered).
     *
     * @param hz this worker's instance (its endpoint UUID is its member id)
     * @param job this worker's membership, started
     * @param settings the job's elastic settings ({@link ElasticSettings#from})
     * @param noJoiners why the job admits no joiner (its data path does not take one yet), published for the
     *     joiners to read; null where it admits them up to maxWorkers
     * @param timer runs the deliveries, the proposals (map calls) and the {@code minWorkers} deadline
     * @param listener told of each view change and of a failure
     * @throws IllegalStateException if a rank of the job is not registered (the job has not started)
     * @throws KVStoreException if this worker is not in the job's view 0 and does not join (a worker that
     *     restarts into a running job joins it), or it joins a job that has no view (not elastic), or one that
     *     admits no joiner
     */
    public ElasticMembership(HazelcastInstance hz, JobMembership job, ElasticSettings settings, String noJoiners,
                             ScheduledExecutorService timer, Listener listener) {
        this.job = job;
        this.noJoiners = noJoiners;
        this.timer = timer;
        this.listener = listener;
        this.self = hz.getLocalEndpoint().getUuid().toString();
        this.name = "job '" + job.jobId() + "'";
        this.byMajority = !job.settings().client();
        IMap<String, String> shared = hz.getMap(ClusterNode.MAP_PREFIX + job.jobId() + ClusterNode.SHARED_SUFFIX);
        String refusesJoiners = job.joining() ? shared.get(NO_JOINERS) : null;
        if (refusesJoiners != null) {
            throw new KVStoreException(null, job.rank(), "job '" + job.jobId() + "' admits no joiner: " + refusesJoiners, null);
        }
        if (noJoiners != null) {
            shared.putIfAbsent(NO_JOINERS, noJoiners); // before any loss: a joiner comes to a running job
        }
        this.settings = settings.agreed(shared, job.jobId(), job.joining(), false);
        this.pause = new PauseDeadline(name, this.settings, timer, lock, why -> fail(new KVStoreException(null, rank, why, null)));
        String maps = ClusterNode.MAP_PREFIX + job.jobId();
        IMap<Integer, String> ranks = hz.getMap(maps + ClusterNode.RANKS_SUFFIX);
        places = new Places(ranks, job.workers(), this::kick); // a joiner registered: the proposer admits it
        List<String> ids = new ArrayList<>();
        for (int r = 0; r < job.workers(); r++) {
            String id = ranks.get(r);
            if (id == null) {
                throw new IllegalStateException("rank " + r + " of " + name + " is not registered: start the "
                        + "elastic membership once every rank joined (JobMembership's start)");
            }
            ids.add(id.startsWith(JobMembership.CLOSED) ? id.substring(JobMembership.CLOSED.length()) : id);
        }
        log = new ViewLog(shared, self, timer);
        first = log.start(View.first(ids));
        View now = job.joining() ? installedNow() : first;
        if (now == null || !job.joining() && first.rankOf(self) < 0) {
            log.close();
            throw new KVStoreException(null, job.rank(), now == null ? name + " has no membership view: a joiner joins "
                    + "a running elastic job (every worker started with elastic=true)" : "this worker (member " + self
                    + ") is not in view 0 of " + name + " " + first.members() + ": it started after the job did; open it "
                    + "with depengine.kvstore.join=true to join the running job", null);
        }
        applied = job.joining() ? null : first;
        base = now;
        rank = job.joining() ? -1 : first.rankOf(self);
        numWorkers = now.size();
        if (job.joining() && now.rankOf(self) < 0 && now.size() >= this.settings.maxWorkers()) {
            log.close();
            throw full(now);
        }
    }

    /**
     * Starts listening: to the views, the job's registrations and its losses. Call once, after construction (so that
     * no delivery reaches a listener whose owner is not built yet: a joiner's first view may be installed already).
     */
    public void start() {
        places.follow();
        // A joiner takes the view installed now too: it may be the one that admits it.
        View now;
        synchronized (lock) {
            now = base;
        }
        log.listen(job.joining() ? Math.max(0, now.epoch() - 1) : first.epoch(), this::delivered);
        job.onLoss(this::lost);
    }

    /** This worker's rank in the view it applied last. */
    public int rank() {
        return rank;
    }

    /** The number of workers of the view this worker applied last. */
    public int numWorkers() {
        return numWorkers;
    }

    /** The view this worker applied last (view 0 at first). */
    public View view() {
        synchronized (lock) {
            return applied;
        }
    }

    /** This worker's member id (its endpoint UUID), as the views list it. */
    public String self() {
        return self;
    }

    /** The place on the wire of member {@code id} (its rank in view 0, or its registration as a joiner), or -1. */
    public int placeOf(String id) {
        return places.placeOf(id);
    }

    /** The failure delivered, or null while the job goes on here. */
    public KVStoreException failure() {
        synchronized (lock) {
            return failure;
        }
    }

    /**
     * Stops: no more proposals, deliveries or failures; the view log stops listening. Idempotent. The
     * membership, the instance and the executor are the caller's.
     */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            pause.cancel();
        }
        ListenerRemovals.removeEach(LOG, job.rank(), places::close);
        log.close();
    }

    /** The registered joiners the view after {@code from} may admit, up to maxWorkers (under the lock). */
    private List<String> joinersAfter(View from) {
        return noJoiners != null ? List.of() : places.joiners(from, lost.keySet(), settings.maxWorkers() - from.size());
    }

    /** Where a job that admits no joiner says why, in its {@code shared} map. */
    static final String NO_JOINERS = "noJoiners";

    /** {@link JobMembership}'s report: the worker at place {@code r} (a rank of view 0, or a joiner) is lost. */
    private void lost(int r, String why) {
        String m = places.idOf(r);
        if (m == null) {
            LOG.warn("{}: worker {} reported lost is not registered in the job: ignored", name, r);
            return;
        }
        if (m.equals(self)) {
            LOG.warn("{}: this worker (rank {} of view 0) is reported lost while it runs: {}", name, r, why);
            return; // the view that drops it says so
        }
        synchronized (lock) {
            if (closed || failure != null || lost.containsKey(m)) {
                return;
            }
            lost.put(m, new Loss(why, Instant.now(), System.nanoTime(), true));
        }
        kick();
    }

    /** Runs a step on the timer unless one is running, which then runs once more. */
    private void kick() {
        synchronized (lock) {
            if (closed || failure != null) {
                return;
            }
            if (stepping) {
                again = true;
                return;
            }
            stepping = true;
        }
        try {
            timer.execute(this::step);
        } catch (RejectedExecutionException e) {
            synchronized (lock) {
                stepping = false;
            }
            LOG.debug("{}: the timer refused a membership step ({})", name, e.toString());
        }
    }

    /**
     * Until nothing changed meanwhile: checks the quorum of the newest view known installed against the
     * members known lost, and proposes the next view if this worker is the proposer. The quorum is checked
     * without a map call first (so a cut-off side whose maps lost the view still fails); a side that seems
     * to lack it reads the installed view once, since a newer one may have dropped some of the lost already.
     */
    private void step() {
        try {
            for (;;) {
                View from;
                List<String> gone = new ArrayList<>();
                List<String> side = new ArrayList<>();
                synchronized (lock) {
                    if (closed || failure != null) {
                        return;
                    }
                    again = false;
                    from = base;
                    for (String m : from.members()) {
                        (lost.containsKey(m) ? gone : side).add(m);
                    }
                }
                if (!gone.isEmpty() && from.rankOf(self) >= 0) {
                    if (byMajority && !from.heldBy(side)) {
                        if (advancedTo(installedNow())) {
                            continue;
                        }
                        log.requireQuorum(from, side); // throws: this side is cut off, every worker of it fails
                    }
                    if (side.get(0).equals(self)) {
                        // A stale `from` loses, and returns the installed view to go on from.
                        advancedTo(log.propose(from, from.without(gone, cause(from, gone)), side, byMajority));
                        continue; // from the view installed now: more may be known lost
                    }
                }
                List<String> joiners;
                synchronized (lock) {
                    joiners = gone.isEmpty() && side.get(0).equals(self) ? joinersAfter(from) : List.of();
                }
                if (!joiners.isEmpty()) {
                    advancedTo(log.propose(from, from.with(joiners, places.admission(joiners, self)), side, byMajority));
                    continue;
                }
                synchronized (lock) {
                    if (!again) {
                        return;
                    }
                }
            }
        } catch (KVStoreException cutOff) {
            fail(cutOff);
        } catch (RuntimeException e) {
            // A map call failed (this instance is shutting down, or lost its cluster): the next loss or view retries.
            LOG.warn("{}: a membership step failed: {}", name, e.toString());
        } finally {
            synchronized (lock) {
                stepping = false;
            }
        }
    }

    /** Whether {@code v} is newer than {@link #base}, which it then becomes. */
    private boolean advancedTo(View v) {
        synchronized (lock) {
            if (v == null || v.epoch() <= base.epoch()) {
                return false;
            }
            base = v;
            return true;
        }
    }

    /** The installed view as the job's map holds it, or null if it cannot be read (a side cut off). */
    private View installedNow() {
        try {
            return log.current();
        } catch (RuntimeException e) {
            LOG.debug("{}: reading the installed view: {}", name, e.toString());
            return null;
        }
    }

    /** Why a joiner is refused: view {@code v} is at maxWorkers without it. */
    private KVStoreException full(View v) {
        return new KVStoreException(null, -1, name + " is full: its view " + v.epoch() + " has " + v.size()
                + " workers, maxWorkers=" + settings.maxWorkers()
                + ", so this worker cannot join; start it once a worker has left, or raise depengine.kvstore.maxWorkers (every worker's)",
                null);
    }

    /** The cause a proposal gives: who is lost, and how and when this worker learned it. */
    private String cause(View from, List<String> gone) {
        StringBuilder sb = new StringBuilder();
        synchronized (lock) {
            for (String m : gone) {
                Loss l = lost.get(m);
                sb.append(sb.length() == 0 ? "" : "; ").append("view ").append(from.epoch()).append("'s rank ")
                        .append(from.rankOf(m)).append(" (member ").append(m).append(") is lost: ").append(l.why())
                        .append(" (seen at ").append(PauseDeadline.CLOCK.format(l.at())).append(")");
            }
        }
        return sb.append("; proposed by member ").append(self).toString();
    }

    /** View {@code v} is installed (the log delivers each epoch once, in order). */
    private void delivered(View v) {
        synchronized (delivering) {
            ViewChange change;
            long reported = Long.MAX_VALUE;
            View refused = null;
            boolean waiting = false;
            synchronized (lock) {
                if (closed || failure != null) {
                    return;
                }
                View previous = applied;
                if (previous == null) { // this worker waits to be admitted: it takes no part in views before
                    if (v.rankOf(self) < 0) {
                        waiting = true;
                        if (v.size() >= settings.maxWorkers() && joinersAfter(v).isEmpty()) {
                            refused = v;
                        }
                    } else {
                        previous = v; // its first view: no one left it for this worker
                    }
                }
                if (v.epoch() > base.epoch()) {
                    base = v;
                }
                List<Departure> left = new ArrayList<>();
                for (String m : previous == null ? List.<String>of() : previous.members()) {
                    if (v.rankOf(m) >= 0) {
                        continue;
                    }
                    Loss l = lost.computeIfAbsent(m, x -> new Loss(v.cause(), Instant.now(), System.nanoTime(), false));
                    if (l.reportedHere()) {
                        reported = Math.min(reported, l.nanos());
                    }
                    left.add(new Departure(previous.rankOf(m), m, l.why(), l.at()));
                }
                int mine = v.rankOf(self);
                if (previous == null) {
                    change = null; // not admitted (yet)
                } else if (mine < 0) {
                    change = null;
                } else {
                    applied = v; // a view without this worker is not applied: the failure follows
                    rank = mine;
                    numWorkers = v.size();
                    change = new ViewChange(v, previous, left, mine, v.size() < settings.minWorkers());
                    pause.applied(change);
                }
            }
            if (waiting) {
                if (refused != null) {
                    fail(full(refused));
                }
                return; // not admitted yet: the view that admits it comes later
            }
            String after = reported == Long.MAX_VALUE ? "no loss in it was reported here before"
                    : String.format("%.3f s after this worker's first report of a loss in it",
                            (System.nanoTime() - reported) / 1e9);
            LOG.info("{}: view {} installed: members {} ({}); {}{}", name, v.epoch(), v.members(), v.cause(), after,
                    change == null ? "; this worker is not in it" : change.paused() ? "; the job is paused: "
                    + v.size() + " of minWorkers=" + settings.minWorkers() + " workers" : "");
            if (change == null) {
                fail(new KVStoreException(null, job.rank(), "this worker was removed from the job in view " + v.epoch()
                        + ": " + v.cause() + ". It was declared lost while it ran (its links were cut); it can come "
                        + "back only as a joiner", null));
                return;
            }
            try {
                listener.changed(change);
            } catch (RuntimeException e) {
                LOG.warn("{}: a membership listener threw on view {}", name, v.epoch(), e);
            }
        }
        kick(); // members of the new view may be known lost already
    }

    /** Delivers {@code e}, the terminal failure, unless one was delivered or this is closed; then stops. */
    private void fail(KVStoreException e) {
        synchronized (delivering) {
            synchronized (lock) {
                if (closed || failure != null) {
                    return;
                }
                failure = e;
                pause.cancel();
            }
            LOG.warn("{}: rank {} stops: {}", name, rank, e.getMessage());
            try {
                listener.failed(e);
            } catch (RuntimeException thrown) {
                LOG.warn("{}: a membership listener threw on the failure", name, thrown);
            }
        }
        log.close();
    }
}
