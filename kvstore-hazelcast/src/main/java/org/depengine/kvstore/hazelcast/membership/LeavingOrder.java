package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The order in which a job's workers leave at close, so that Hazelcast has as little to warn about as it
 * allows. A map destroyed on a member while that member shuts down fails there, and both members log it;
 * a master that leaves first is suspected dead by the others, which then claim its mastership. So:
 * <ul>
 *   <li>a worker that shuts its own member down at close says so when it joins ({@link #announce});</li>
 *   <li>exactly one worker is the last closer ({@link #electLastCloser}: an entry of the job's shared map
 *       settles a tie), and it destroys the maps once the other leaving members, the master excepted, are
 *       gone ({@link #awaitBeforeDestroy});</li>
 *   <li>a master shuts down only once the other leaving members are gone ({@link #shutDown}).</li>
 * </ul>
 * Each wait is bounded by {@value #WAIT_MS} ms; past it a worker goes on as it would alone. What Hazelcast
 * 5.7 still logs is its own: a member that stays tries to reconnect to one that left gracefully, then removes
 * it with a warning (Hazelcast issue 26319).
 *
 * <p>Thread-safe.
 */
final class LeavingOrder {
    private static final Logger LOG = LoggerFactory.getLogger(LeavingOrder.class);
    /** {@code leaves.<rank>} → the id of the member that rank's worker shuts down at close. */
    private static final String LEAVES = "leaves.";
    /** The rank of the last worker to close: the one that destroys the maps. */
    private static final String LAST_CLOSER = "lastCloser";
    /** How long a worker waits for the other leaving members before it goes on anyway. */
    static final long WAIT_MS = 5_000;

    private final HazelcastInstance hz;
    private final IMap<String, String> shared;
    private final int rank;
    private final int workers;
    private final String jobId;
    /** Notified at every member's departure ({@link #memberLeft}): the waits sleep on it. */
    private final Object departures = new Object();
    /** The members the other ranks shut down at close, as announced when this worker began to leave. */
    private volatile Set<UUID> leavingOthers = Set.of();

    LeavingOrder(HazelcastInstance hz, IMap<String, String> shared, int rank, int workers, String jobId) {
        this.hz = hz;
        this.shared = shared;
        this.rank = rank;
        this.workers = workers;
        this.jobId = jobId;
    }

    /** This worker, registered as {@code memberId}, shuts its member down at close. */
    void announce(String memberId) {
        shared.put(LEAVES + rank, memberId);
    }

    /** Reads which members the other ranks shut down: call before this rank is marked closed, while the maps exist. */
    void readOthers() {
        Set<UUID> others = new HashSet<>();
        for (int r = 0; r < workers; r++) {
            String id = r == rank ? null : shared.get(LEAVES + r);
            if (id != null) {
                others.add(UUID.fromString(id));
            }
        }
        leavingOthers = others;
    }

    /**
     * Whether every registered worker ({@code registered}: the ranks map's entries) is done with the job's
     * maps: closed, or, in an elastic job ({@code departed} not null), one the job went on without: in
     * {@code departed}, or no longer in the cluster ({@code live} lists who is; asked only if needed). Those
     * never close their ranks, and the maps would stay for ever. A cluster that cannot be asked counts as
     * not done: the maps stay, as a fixed-size job's do when a worker crashed.
     */
    boolean everyRankDone(Collection<String> registered, Set<String> departed, Supplier<Set<String>> live) {
        List<String> open = registered.stream().filter(v -> !v.startsWith(JobMembership.CLOSED))
                .filter(v -> departed == null || !departed.contains(v)).toList();
        if (open.isEmpty() || departed == null) {
            return open.isEmpty();
        }
        try {
            Set<String> in = live.get();
            return open.stream().noneMatch(in::contains);
        } catch (RuntimeException e) {
            LOG.debug("rank {}: cannot tell whether the workers {} of job '{}' are gone ({}); its maps stay", rank, open,
                    jobId, e.toString());
            return false;
        }
    }

    /** Whether this worker, which saw every rank closed, is the one last closer (two closing together can both see it). */
    boolean electLastCloser() {
        return shared.putIfAbsent(LAST_CLOSER, Integer.toString(rank)) == null;
    }

    /** The last closer, before it destroys the maps: waits until the other leaving members but the master are gone. */
    void awaitBeforeDestroy() {
        await(false);
    }

    /** Shuts this worker's member down; a master first waits until the other leaving members are gone. */
    void shutDown() {
        if (!leavingOthers.isEmpty() && hz.getCluster().getMembers().iterator().next().localMember()) {
            await(true);
        }
        hz.shutdown();
    }

    /** A member left the cluster: the waits look again. Called from the membership listener. */
    void memberLeft() {
        synchronized (departures) {
            departures.notifyAll();
        }
    }

    /**
     * Waits, at most {@value #WAIT_MS} ms, until the members in {@link #leavingOthers} have left the
     * cluster, the master among them only if {@code withMaster}. Past the bound it returns anyway (a rank
     * still training, or a member stuck leaving: at worst Hazelcast's warnings, never a hang).
     */
    private void await(boolean withMaster) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        synchronized (departures) {
            while (true) {
                Set<Member> members = hz.getCluster().getMembers();
                UUID master = members.iterator().next().getUuid();
                if (members.stream().noneMatch(m -> leavingOthers.contains(m.getUuid())
                        && (withMaster || !m.getUuid().equals(master)))) {
                    return;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    LOG.debug("rank {}: the other leaving members of job '{}' were not gone within {} ms; going on",
                            rank, jobId, WAIT_MS);
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(departures, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
