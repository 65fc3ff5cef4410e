package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.MembershipChange;
import org.depengine.kvstore.hazelcast.membership.ElasticMembership;
import org.depengine.kvstore.hazelcast.membership.ElasticSettings;
import org.depengine.kvstore.hazelcast.membership.JobMembership;
import org.depengine.kvstore.hazelcast.membership.ViewChange;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.depengine.kvstore.spi.Rounds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's elastic job ({@code elastic=true}): the membership's views ({@link ElasticMembership}) handed to
 * the data path ({@link ElasticPath#changeView}, once it can reach every worker of the view), which carries every
 * key's rounds over to each view; and, once the data path has installed a view, the store's rank and size and
 * its listeners' {@link MembershipChange}, after which the path lets the view's rounds be seen
 * ({@link ElasticPath#released}). The data path is the workers' exchange ({@code updateOn=worker}) or the keys'
 * owners ({@code updateOn=server}, {@code dist_async}). A view below {@code minWorkers} is not handed over: the
 * rounds wait (they need the lost worker) until workers join or the membership fails the job, naming who left
 * and when. A joiner ({@code join=true}) waits in {@link #awaitAdmission} for the view that admits it, which its
 * data path installs as any other.
 */
final class ElasticJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ElasticJob.class);

    private final ElasticPath path;
    private final ScheduledExecutorService events;
    private final Consumer<MembershipChange> deliver;
    private final ElasticMembership membership;
    private final JobMembership job;
    private final long recoveryTimeoutMs;
    /** A joiner's admission: completed with the period its rounds start in, or failed. */
    private final java.util.concurrent.CompletableFuture<Integer> admission = new java.util.concurrent.CompletableFuture<>();
    /** The membership's changes not delivered yet, by epoch. */
    private final Map<Integer, ViewChange> changes = new ConcurrentHashMap<>();
    /** The members the views this worker applied went on without. */
    private final Set<String> departed = ConcurrentHashMap.newKeySet();
    /** Read by any thread; written on {@link #events} only, just before a change is delivered. */
    private volatile int rank;
    private volatile int workers;
    /** The last view delivered; on {@link #events} only. */
    private View delivered;

    /**
     * Starts this worker's elastic membership (once every worker joined) over the data path {@code path}.
     *
     * @param noJoiners why the job admits no joiner (its data path does not take one yet), or null
     * @param events runs the deliveries, one at a time (the store's timer)
     * @param deliver delivers a change to the store's listeners, on {@code events}
     */
    ElasticJob(HazelcastInstance hz, JobMembership job, ElasticSettings settings, ElasticPath path, String noJoiners,
               ScheduledExecutorService events, Consumer<MembershipChange> deliver) {
        this.path = path;
        this.events = events;
        this.deliver = deliver;
        this.job = job;
        this.rank = job.joining() ? -1 : job.rank();
        this.workers = job.workers();
        path.onViewInstalled(this::installed);
        this.recoveryTimeoutMs = settings.recoveryTimeout().toMillis();
        path.recoveryTimeout(recoveryTimeoutMs);
        this.membership = new ElasticMembership(hz, job, settings, noJoiners, events, new ElasticMembership.Listener() {
            @Override
            public void changed(ViewChange change) {
                viewChanged(change);
            }

            @Override
            public void failed(KVStoreException failure) {
                LOG.error("rank {}: {}", rank, failure.getMessage());
                admission.completeExceptionally(failure);
                path.failAll(failure.getMessage());
            }
        });
        this.delivered = membership.view(); // null for a joiner, until admitted
        membership.start(); // after the fields: a delivery may come at once
    }

    /**
     * The members of this job that the views this worker applied went on without (a joiner's: since its
     * admission). They never close their ranks: the job's last closer must not wait for them to destroy the maps.
     */
    Set<String> departed() {
        return Set.copyOf(departed);
    }

    /**
     * A joiner: waits until a view admits it and its data path has installed it, up to {@code timeoutMs}.
     *
     * @return the period its rounds start in (it ended every period before)
     * @throws KVStoreException if it is refused (the job is at maxWorkers), the job fails, or no view admits it in time
     */
    int awaitAdmission(long timeoutMs) {
        try {
            return admission.get(timeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof KVStoreException k ? k : new KVStoreException(null, -1, "joining failed", e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new KVStoreException(null, -1, "no view of job '" + job.jobId() + "' admitted this worker (worker "
                    + job.rank() + ") within " + timeoutMs + " ms (depengine.kvstore.joinTimeoutMs): its workers admit a "
                    + "joiner at once unless one of them is being replaced; is the job running, with elastic=true?", null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, -1, "interrupted while waiting to be admitted", e);
        }
    }

    /** This worker's rank in the last view the store delivered. */
    int rank() {
        return rank;
    }

    /** The workers of the last view the store delivered. */
    int numWorkers() {
        return workers;
    }

    private void viewChanged(ViewChange change) {
        change.left().forEach(d -> departed.add(d.member()));
        changes.put(change.epoch(), change);
        if (change.paused()) {
            LOG.warn("rank {}: view {} has {} workers, fewer than minWorkers: the rounds wait for workers to join",
                    rank, change.epoch(), change.numWorkers());
            return;
        }
        int[] mids = change.view().members().stream().mapToInt(membership::placeOf).toArray();
        try {
            // On the store's timer, which runs the membership too: a new worker's transport is reached first, within
            // the bound of the change itself.
            path.reach(java.util.Arrays.stream(mids).boxed().toList(), recoveryTimeoutMs);
        } catch (RuntimeException e) {
            if (delivered == null) { // a joiner that cannot reach the job cannot take part in it
                LOG.error("worker {}: cannot reach a worker of view {}: {}", job.rank(), change.epoch(), e.getMessage());
                admission.completeExceptionally(e);
                path.failAll("view " + change.epoch() + "'s workers cannot all be reached: " + e.getMessage());
                return;
            }
            // A joiner that died before it could be reached: the view without it follows (its loss is reported), and
            // this change waits for it only until then, or recoveryTimeoutMs.
            LOG.warn("rank {}: cannot reach a worker of view {}, which goes on without it until its loss is seen: {}",
                    rank, change.epoch(), e.getMessage());
        }
        path.changeView(change.epoch(), mids);
    }

    /** The data path installed view {@code epoch} (under its lock): the store moves to it on its event thread. */
    private void installed(int epoch, int newRank, int size, Map<String, Long> agreed, int joinPeriod) {
        Map<String, Long> firstRounds = new TreeMap<>();
        agreed.forEach((key, a) -> firstRounds.put(key, a == ElasticRule.NOT_STARTED ? Rounds.of(0, 1)
                : Rounds.of(Rounds.period(a), Rounds.index(a) + 1)));
        try {
            events.execute(() -> {
                try {
                    deliver(epoch, newRank, size, firstRounds, joinPeriod);
                } catch (RuntimeException e) {
                    LOG.error("rank {}: moving the store to view {} failed; its listeners were not told", rank, epoch, e);
                } finally {
                    path.released(epoch);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("rank {}: view {} installed as the store closes; not delivered", rank, epoch);
        }
    }

    /** Moves the store to view {@code epoch} (and past any view the data path skipped), then tells its listeners. */
    private void deliver(int epoch, int newRank, int size, Map<String, Long> firstRounds, int joinPeriod) {
        List<MembershipChange.Departure> left = new ArrayList<>();
        View previous = delivered;
        if (previous == null) { // this joiner's admission: its store starts now, with no listener yet
            ViewChange c = changes.remove(epoch);
            changes.keySet().removeIf(e -> e < epoch);
            delivered = c.view();
            rank = newRank;
            workers = size;
            LOG.info("worker {} joined job '{}' as rank {} of {} in view {}; its rounds start in period {}", job.rank(),
                    job.jobId(), newRank, size, epoch, joinPeriod);
            admission.complete(joinPeriod);
            return;
        }
        View now = null;
        for (int e = previous.epoch() + 1; e <= epoch; e++) {
            ViewChange c = changes.remove(e); // views the data path skipped (a later one came first) are in this one
            if (c == null) {
                continue;
            }
            now = c.view();
            for (ViewChange.Departure d : c.left()) {
                // Its rank in the view the store last moved to (a skipped view's ranks are no one's here).
                left.add(new MembershipChange.Departure(previous.rankOf(d.member()), d.member(), d.why(), d.detectedAt()));
            }
        }
        if (now == null) {
            return;
        }
        delivered = now;
        String self = membership.self();
        rank = newRank;
        workers = size;
        List<MembershipChange.Arrival> joined = new ArrayList<>();
        for (String m : now.members()) {
            if (previous.rankOf(m) < 0) {
                joined.add(new MembershipChange.Arrival(now.rankOf(m), m, Math.max(0, joinPeriod)));
            }
        }
        MembershipChange change = new MembershipChange(epoch, previous.rankOf(self), newRank, size, left, joined,
                firstRounds);
        LOG.info("rank {}: job moved to view {} of {} workers (was rank {} of {}); first rounds of the new view {}",
                newRank, epoch, size, change.previousRank(), previous.size(), firstRounds);
        deliver.accept(change);
    }

    @Override
    public void close() {
        membership.close();
    }
}
