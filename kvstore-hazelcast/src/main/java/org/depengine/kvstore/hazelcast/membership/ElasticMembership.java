package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.membership.ViewChange.Departure;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's part in an elastic job's views ({@code docs/elastic-design.md}, sections 2, 5 and 7), on top
 * of its {@link JobMembership} (who joined, who is lost) and a {@link ViewLog} (the views in the job's
 * {@code shared} map). Step 3 of the design: the store does not use it yet (the data path's recovery,
 * step 4, is what would act on the views).
 *
 * <ul>
 *   <li><b>View 0</b>: the members' ids (the endpoint UUIDs {@link JobMembership} registers in the job's
 *       {@code ranks} map) in rank order, installed by whichever worker is first ({@link ViewLog#start}).
 *   <li><b>Losses</b>: each rank {@link JobMembership} reports lost (a member that left the cluster, a client
 *       the members reported) is a member of view 0 known lost here; a view that drops a member this worker
 *       had not seen leave makes it known lost too.
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
 *   <li><b>minWorkers</b>: a view with fewer members is installed, but the job is paused; if no view with
 *       at least {@code minWorkers} members follows within {@code minWorkersWaitMs} (joiners are not built
 *       yet, so none does), the job fails, naming who left and when.
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
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());

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
    /** Taken around each call of the listener, and before {@link #lock}: the calls are one at a time, in order. */
    private final Object delivering = new Object();
    /** Guards the fields below. */
    private final Object lock = new Object();
    /** Members known lost (never this worker), in the order learned. */
    private final Map<String, Loss> lost = new LinkedHashMap<>();
    /** The last view delivered here. */
    private View applied;
    /** The highest view known installed (proposed, read or delivered): where the next proposal starts. */
    private View base;
    private boolean stepping;
    private boolean again;
    private KVStoreException failure;
    private boolean closed;
    /** Since when the applied view has fewer than minWorkers members, or null; with who left meanwhile. */
    private Instant pausedSince;
    private final List<Departure> belowMinimum = new ArrayList<>();
    private ScheduledFuture<?> pauseDeadline;
    private volatile int rank;
    private volatile int numWorkers;

    /**
     * Starts this worker's part: installs (or reads) view 0, then listens to the views and to
     * {@code job}'s losses. Call once {@code job} has started (every rank joined).
     *
     * @param hz this worker's instance (its endpoint UUID is its member id)
     * @param job this worker's membership, started
     * @param settings the job's elastic settings ({@link ElasticSettings#from})
     * @param timer runs the deliveries, the proposals (map calls) and the {@code minWorkers} deadline
     * @param listener told of each view change and of a failure
     * @throws IllegalStateException if a rank of the job is not registered (the job has not started)
     * @throws KVStoreException if this worker is not in the job's view 0 (a worker that restarts into a
     *     running job must join it, which is not built yet)
     */
    public ElasticMembership(HazelcastInstance hz, JobMembership job, ElasticSettings settings,
                             ScheduledExecutorService timer, Listener listener) {
        this.job = job;
        this.settings = settings;
        this.timer = timer;
        this.listener = listener;
        this.self = hz.getLocalEndpoint().getUuid().toString();
        this.name = "job '" + job.jobId() + "'";
        this.byMajority = !job.settings().client();
        String maps = ClusterNode.MAP_PREFIX + job.jobId();
        IMap<Integer, String> ranks = hz.getMap(maps + ClusterNode.RANKS_SUFFIX);
        List<String> ids = new ArrayList<>();
        for (int r = 0; r < job.workers(); r++) {
            String id = ranks.get(r);
            if (id == null) {
                throw new IllegalStateException("rank " + r + " of " + name + " is not registered: start the "
                        + "elastic membership once every rank joined (JobMembership's start)");
            }
            ids.add(id.startsWith(JobMembership.CLOSED) ? id.substring(JobMembership.CLOSED.length()) : id);
        }
        IMap<String, String> shared = hz.getMap(maps + ClusterNode.SHARED_SUFFIX);
        log = new ViewLog(shared, self, timer);
        first = log.start(View.first(ids));
        if (first.rankOf(self) < 0) {
            log.close();
            throw new KVStoreException(null, job.rank(), "this worker (member " + self + ") is not in view 0 of " + name
                    + " " + first.members() + ": it started after the job did, and joining a running job is not "
                    + "built yet", null);
        }
        applied = first;
        base = first;
        rank = first.rankOf(self);
        numWorkers = first.size();
        log.listen(first.epoch(), this::delivered);
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
            cancelPauseDeadline();
        }
        log.close();
    }

    /** {@link JobMembership}'s report: rank {@code r} of view 0 is lost. */
    private void lost(int r, String why) {
        if (r < 0 || r >= first.size()) {
            LOG.warn("{}: rank {} reported lost is not a rank of view 0 {}: ignored", name, r, first.members());
            return;
        }
        String m = first.members().get(r);
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

    /** The cause a proposal gives: who is lost, and how and when this worker learned it. */
    private String cause(View from, List<String> gone) {
        StringBuilder sb = new StringBuilder();
        synchronized (lock) {
            for (String m : gone) {
                Loss l = lost.get(m);
                sb.append(sb.length() == 0 ? "" : "; ").append("view ").append(from.epoch()).append("'s rank ")
                        .append(from.rankOf(m)).append(" (member ").append(m).append(") is lost: ").append(l.why())
                        .append(" (seen at ").append(CLOCK.format(l.at())).append(")");
            }
        }
        return sb.append("; proposed by member ").append(self).toString();
    }

    /** View {@code v} is installed (the log delivers each epoch once, in order). */
    private void delivered(View v) {
        synchronized (delivering) {
            ViewChange change;
            long reported = Long.MAX_VALUE;
            synchronized (lock) {
                if (closed || failure != null) {
                    return;
                }
                View previous = applied;
                if (v.epoch() > base.epoch()) {
                    base = v;
                }
                List<Departure> left = new ArrayList<>();
                for (String m : previous.members()) {
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
                if (mine < 0) {
                    change = null;
                } else {
                    applied = v; // a view without this worker is not applied: the failure follows
                    rank = mine;
                    numWorkers = v.size();
                    change = new ViewChange(v, previous, left, mine, v.size() < settings.minWorkers());
                    pauseOrResume(change);
                }
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

    /** Under {@link #lock}: starts the minWorkers deadline when the job goes below it, ends it when back. */
    private void pauseOrResume(ViewChange change) {
        if (!change.paused()) {
            pausedSince = null;
            belowMinimum.clear();
            cancelPauseDeadline();
            return;
        }
        belowMinimum.addAll(change.left());
        if (pausedSince == null) {
            pausedSince = Instant.now();
            long wait = settings.minWorkersWait().toMillis();
            try {
                pauseDeadline = timer.schedule(this::belowMinimumTooLong, wait, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: the timer refused the minWorkers deadline ({})", name, e.toString());
            }
        }
    }

    private void cancelPauseDeadline() {
        if (pauseDeadline != null) {
            pauseDeadline.cancel(false);
            pauseDeadline = null;
        }
    }

    /** The minWorkers deadline: the job is still below it. */
    private void belowMinimumTooLong() {
        String message;
        synchronized (lock) {
            if (pausedSince == null || closed || failure != null) {
                return; // back at minWorkers meanwhile
            }
            StringBuilder who = new StringBuilder();
            for (Departure d : belowMinimum) {
                who.append(who.length() == 0 ? "" : ", ").append("rank ").append(d.rank()).append(" (member ")
                        .append(d.member()).append(") left the cluster at ").append(CLOCK.format(d.detectedAt()))
                        .append(" (").append(d.why()).append(")");
            }
            message = name + " has " + applied.size() + " of minWorkers=" + settings.minWorkers() + " workers since "
                    + CLOCK.format(pausedSince) + ": " + who + "; no worker joined within minWorkersWaitMs="
                    + settings.minWorkersWait().toMillis();
        }
        fail(new KVStoreException(null, rank, message, null));
    }

    /** Delivers {@code e}, the terminal failure, unless one was delivered or this is closed; then stops. */
    private void fail(KVStoreException e) {
        synchronized (delivering) {
            synchronized (lock) {
                if (closed || failure != null) {
                    return;
                }
                failure = e;
                cancelPauseDeadline();
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
