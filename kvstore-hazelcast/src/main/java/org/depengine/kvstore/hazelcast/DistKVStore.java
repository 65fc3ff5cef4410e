package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.depengine.api.CallbackOnComplete;
import org.depengine.api.Engine;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.HazelcastSettings.UpdateOn;
import org.depengine.kvstore.hazelcast.client.RoundClient;
import org.depengine.kvstore.hazelcast.hz.UpdaterClasses;
import org.depengine.kvstore.hazelcast.membership.ClusterNode;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.kvstore.hazelcast.membership.ElasticSettings;
import org.depengine.kvstore.hazelcast.membership.JobMembership;
import org.depengine.kvstore.spi.AbstractKVStore;
import org.depengine.kvstore.spi.Key;
import org.depengine.kvstore.spi.KVStoreSettingsCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code dist_sync} or {@code dist_async} store: the base class pushes the ops; this class wires the
 * job's membership ({@link JobMembership}), its barriers and Hazelcast-kept keys ({@link RoundClient}) and
 * the data path of the store's mode ({@link DataPath}). Each call completes its op from a callback, so no
 * engine thread waits on the network.
 *
 * <p>The base class gives each op its round, in the calls' order per key, when the op runs
 * ({@link org.depengine.kvstore.spi.Rounds}); this class hands the rounds to the data path as they are. A
 * worker's end of a period ({@code endOfData()}, or the {@code barrier()} that ends it) tells the data path
 * that this worker has no more data for it, so a worker with fewer batches never holds a round up. Every
 * worker initialises every key at the same point relative to its barriers (as every worker runs the same
 * program).
 */
final class DistKVStore extends AbstractKVStore {
    private static final Logger LOG = LoggerFactory.getLogger(DistKVStore.class);

    private final HazelcastInstance hz;
    private final boolean ownsInstance;
    private final boolean async;
    private final ClusterSettings cluster;
    private final ScheduledThreadPoolExecutor timer;
    private final JobMembership job;
    private final RoundClient rounds;
    private final DataPath path;
    /** An elastic job's views ({@code elastic=true}), or null. */
    private final ElasticJob elastic;

    DistKVStore(Engine engine, String type, KVStoreSettings settings, HazelcastInstance hz, boolean ownsInstance,
                ClusterSettings cluster) {
        super(engine, type, settings);
        this.hz = hz;
        this.ownsInstance = ownsInstance;
        this.async = HazelcastKVStoreProvider.DIST_ASYNC.equals(type);
        this.cluster = cluster;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "kvstore-" + cluster.jobId() + (ElasticSettings.joins(settings) ? "-joiner"
                    : "-rank" + cluster.rank()));
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        // Rank 0 reads the checkpoint (only its host needs the file); the others learn its period at open. A file
        // rank 0 refuses reaches the others as the job's refusal, instead of leaving them to time out.
        Checkpoint resumed = null;
        RuntimeException refused = null;
        if (settings.resume().isPresent() && settings.rank() == 0) {
            try {
                resumed = Checkpoint.read(settings.resume().get());
            } catch (IllegalArgumentException | UncheckedIOException e) {
                refused = e;
            }
        }
        Integer resumePeriod = settings.resume().isEmpty() ? null : resumed == null ? 0 : resumed.period();
        boolean joining = ElasticSettings.joins(settings);
        JobMembership joined;
        try {
            joined = new JobMembership(hz, cluster, resumePeriod, refused == null ? null : refused.getMessage(), timer,
                    joining, settings.get(KVStoreSettingsCatalog.NUM_WORKERS.key()).isPresent() ? settings.numWorkers() : -1);
        } catch (RuntimeException e) {
            timer.shutdownNow();
            throw refused != null ? refused : e;
        }
        this.job = joined;
        if (shutsMemberDown()) {
            job.shutsMemberDownAtClose();
        }
        RoundClient client = null;
        DataPath p = null;
        ElasticJob views = null;
        ElasticSettings elasticSettings = ElasticSettings.from(settings, job.workers());
        int joinPeriod = -1;
        try {
            boolean workerPath = cluster.updateOn() == UpdateOn.WORKER; // never with dist_async (ClusterSettings)
            // The round client carries an elastic job's views where it keeps the keys (updateOn=server, dist_async).
            client = new RoundClient(hz, job, async, elasticSettings.elastic() && !workerPath, timer);
            p = workerPath ? WorkerPath.open(engine, hz, job, cluster, elasticSettings.elastic(), this::applyUpdater, timer,
                    stats()) : new ServerPath(client, async, job.rank(), stats());
            job.onLoss((r, why) -> stats().workerLost());
            if (elasticSettings.elastic()) {
                elasticSettings.agreed(hz.getMap(ClusterNode.MAP_PREFIX + cluster.jobId() + ClusterNode.SHARED_SUFFIX),
                        cluster.jobId(), joining, settings.get(HazelcastSettings.MIN_WORKERS.key()).isPresent()
                                || settings.get(HazelcastSettings.MAX_WORKERS.key()).isPresent());
                String noJoiners = workerPath ? null : "it runs " + (async ? "dist_async" : "updateOn=server")
                        + ", whose elastic jobs go on without a lost worker but admit no worker yet (issue 40)";
                views = new ElasticJob(hz, job, elasticSettings, (ElasticPath) p, noJoiners, timer, this::membershipChanged);
                if (joining) {
                    joinPeriod = views.awaitAdmission(cluster.joinTimeoutMs());
                }
            }
        } catch (RuntimeException e) {
            if (views != null) {
                views.close();
            }
            if (joining) {
                job.withdraw();
            }
            if (p != null) {
                p.close();
            }
            if (client != null) {
                client.close();
            }
            job.close();
            timer.shutdownNow();
            throw e;
        }
        this.rounds = client;
        this.path = p;
        this.elastic = views;
        if (resumePeriod != null) {
            resumeAt(job.resumedPeriod(), resumed, settings.resume().get().toString());
            exchangeStartsIn(job.resumedPeriod());
        } else if (joining) {
            resumeAt(joinPeriod, null, "the job's workers (joined)"); // each init takes the job's copy, over the data path
        }
    }

    /** A resumed job's data path starts in {@code period} too: a view change names the period joiners start after. */
    private void exchangeStartsIn(int period) {
        if (path instanceof WorkerPath w) {
            w.exchange().startsIn(period);
        }
    }

    /** In an elastic job, this worker's rank in the view it moved to last ({@link #onMembershipChange}). */
    @Override
    public int rank() {
        return elastic == null ? super.rank() : elastic.rank();
    }

    /** In an elastic job, the workers of the view this worker moved to last. */
    @Override
    public int numWorkers() {
        return elastic == null ? super.numWorkers() : elastic.numWorkers();
    }

    /** Where this store's updater runs. */
    UpdateOn updateOn() {
        return cluster.updateOn();
    }

    /** Only an updater the keys' owners will deserialize, where they run it ({@link UpdaterClasses}). */
    @Override
    protected void checkUpdater(Updater updater) {
        if (cluster.updateOn() == UpdateOn.SERVER) {
            UpdaterClasses.check(updater, cluster.updaterClasses());
        }
    }

    @Override
    protected void sendInit(Key key, CallbackOnComplete done) {
        path.init(key, done);
    }

    /** From the keys' owners ({@code updateOn=server}), or here once each key is brought to the period's end. */
    @Override
    protected List<Checkpoint.Entry> snapshot(List<Key> keys, int period) throws Exception {
        List<Checkpoint.Entry> read = path.snapshot(keys, period);
        return read != null ? read : super.snapshot(keys, period);
    }

    @Override
    protected void send(Key key, long round, CallbackOnComplete done) {
        path.send(key, round, updater(), done);
    }

    @Override
    protected boolean reportsSkippedPushes() {
        return !async;
    }

    @Override
    protected void skippedSend(Key key, long round, CallbackOnComplete done) {
        path.skipped(key, round, done);
    }

    @Override
    protected boolean pullFetches() {
        return path.pullFetches();
    }

    @Override
    protected void fetch(Key key, long round, CallbackOnComplete done) {
        path.fetch(key, round, done);
    }

    @Override
    protected boolean endsPeriods() {
        return !async;
    }

    @Override
    protected void endPeriod(int period, CallbackOnComplete done) {
        path.endPeriod(period, done);
    }

    /**
     * Waits for every worker at the barrier; in an elastic job, for every worker of the view installed.
     * {@code updateOn=worker}: for each to have ended the period (by its barrier or its {@code endOfData}) and
     * every round of it to be summed, across view changes (the data path's periods). {@code updateOn=server} and
     * {@code dist_async}: a round of the barrier's key, which the owner completes without the workers a view
     * dropped, held here until this worker has moved to that view.
     */
    @Override
    protected void doBarrier() {
        try {
            if (elastic != null && path instanceof WorkerPath w) {
                w.exchange().awaitClosed(period() - 1, "barrier ending period " + (period() - 1));
                return;
            }
            rounds.barrier().get();
        } catch (ExecutionException e) {
            throw (RuntimeException) unwrap(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KVStoreException(null, rank(), "interrupted in barrier", e);
        }
    }

    /**
     * Leaves the job (this worker's rounds to come complete without it, its rank is marked closed, the last
     * worker destroys the maps), then stops listening and fails what still waits. The leave runs on the
     * closing thread, not on the store's timer: the timer runs the deadlines of the leave's own calls
     * ({@code timeoutMs}), which a leave blocking that one thread would hold off until the join timeout.
     * Each step is bounded (a call by {@code timeoutMs}, a rendezvous by the join timeout), and one that
     * fails does not keep the next from running. A member this store started then shuts down, a master
     * after the job's other members (at most 5 s more; {@link JobMembership#shutDownMember}).
     */
    @Override
    protected void closeStore() {
        if (elastic != null) {
            elastic.close();
        }
        job.markClosing();
        if (job.registered()) {
            leaveStep("tell its peers", path::leave);
            leaveStep("end its rounds", rounds::leave);
            leaveStep("mark its rank closed", () -> job.leave(elastic == null ? null : elastic.departed()));
        }
        path.close();
        rounds.close();
        if (shutsMemberDown()) {
            job.shutDownMember(); // the membership's listeners go with the member (they order its leaving)
        } else {
            job.close();
            if (ownsInstance) {
                hz.shutdown();
            }
        }
        timer.shutdownNow();
    }

    /** One step of leaving the job ({@link #closeStore}). */
    private interface LeaveStep {
        void run() throws Exception;
    }

    /**
     * Runs one step of leaving; one that fails is logged and the next steps still run, so that a round
     * that could not be ended still leaves the rank marked closed (the last closer then destroys the maps).
     */
    private void leaveStep(String what, LeaveStep step) {
        try {
            step.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("rank {}: interrupted while leaving job '{}' ({})", rank(), cluster.jobId(), what);
        } catch (Exception e) {
            LOG.warn("rank {}: leaving job '{}', could not {} (its maps may stay): {}", rank(), cluster.jobId(), what,
                    e.toString());
        }
    }

    /** Whether this store shuts its member down at close: it started an embedded member, not a client. */
    private boolean shutsMemberDown() {
        return ownsInstance && !cluster.client();
    }

    static Throwable unwrap(Throwable err) {
        while (err instanceof java.util.concurrent.CompletionException && err.getCause() != null) {
            err = err.getCause();
        }
        return err;
    }
}
