package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.depengine.kvstore.hazelcast.peer.PeerExchange;
import org.depengine.kvstore.hazelcast.protocol.ElasticRule;
import org.depengine.kvstore.hazelcast.protocol.View;
import org.depengine.kvstore.spi.Rounds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's elastic job ({@code elastic=true}, {@code dist_sync}, {@code updateOn=worker}): the membership's
 * views ({@link ElasticMembership}) handed to the data path ({@link PeerExchange#changeView}), which carries
 * every key's rounds over to each view; and, once the data path has installed a view, the store's rank and
 * size and its listeners' {@link MembershipChange}. A view below {@code minWorkers} is not handed over: the
 * rounds wait (they need the lost worker) until the membership fails the job, naming who left and when.
 */
final class ElasticJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ElasticJob.class);

    private final PeerExchange exchange;
    private final ScheduledExecutorService events;
    private final Consumer<MembershipChange> deliver;
    private final ElasticMembership membership;
    private final View first;
    /** The membership's changes not delivered yet, by epoch. */
    private final Map<Integer, ViewChange> changes = new ConcurrentHashMap<>();
    /** Read by any thread; written on {@link #events} only, just before a change is delivered. */
    private volatile int rank;
    private volatile int workers;
    /** The last view delivered; on {@link #events} only. */
    private View delivered;

    /**
     * Starts this worker's elastic membership (once every worker joined) over {@code exchange}.
     *
     * @param events runs the deliveries, one at a time (the store's timer)
     * @param deliver delivers a change to the store's listeners, on {@code events}
     */
    ElasticJob(HazelcastInstance hz, JobMembership job, ElasticSettings settings, PeerExchange exchange,
               ScheduledExecutorService events, Consumer<MembershipChange> deliver) {
        this.exchange = exchange;
        this.events = events;
        this.deliver = deliver;
        this.rank = job.rank();
        this.workers = job.workers();
        exchange.onViewInstalled(this::installed);
        exchange.recoveryTimeout(settings.recoveryTimeout().toMillis());
        this.membership = new ElasticMembership(hz, job, settings, events, new ElasticMembership.Listener() {
            @Override
            public void changed(ViewChange change) {
                viewChanged(change);
            }

            @Override
            public void failed(KVStoreException failure) {
                LOG.error("rank {}: {}", rank, failure.getMessage());
                exchange.failAll(failure.getMessage());
            }
        });
        this.first = membership.view();
        this.delivered = first;
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
        changes.put(change.epoch(), change);
        if (change.paused()) {
            LOG.warn("rank {}: view {} has {} workers, fewer than minWorkers: the rounds wait for workers to join",
                    rank, change.epoch(), change.numWorkers());
            return;
        }
        int[] mids = change.view().members().stream().mapToInt(first::rankOf).toArray();
        exchange.changeView(change.epoch(), mids);
    }

    /** The data path installed view {@code epoch} (under its lock): the store moves to it on its event thread. */
    private void installed(int epoch, int newRank, int size, Map<String, Long> agreed) {
        Map<String, Long> firstRounds = new TreeMap<>();
        agreed.forEach((key, a) -> firstRounds.put(key, a == ElasticRule.NOT_STARTED ? Rounds.of(0, 1)
                : Rounds.of(Rounds.period(a), Rounds.index(a) + 1)));
        try {
            events.execute(() -> {
                try {
                    deliver(epoch, newRank, size, firstRounds);
                } catch (RuntimeException e) {
                    LOG.error("rank {}: moving the store to view {} failed; its listeners were not told", rank, epoch, e);
                } finally {
                    exchange.released(epoch);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("rank {}: view {} installed as the store closes; not delivered", rank, epoch);
        }
    }

    /** Moves the store to view {@code epoch} (and past any view the data path skipped), then tells its listeners. */
    private void deliver(int epoch, int newRank, int size, Map<String, Long> firstRounds) {
        List<MembershipChange.Departure> left = new ArrayList<>();
        View previous = delivered;
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
        MembershipChange change = new MembershipChange(epoch, previous.rankOf(self), newRank, size, left, List.of(),
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
