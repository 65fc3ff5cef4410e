package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.nio.FloatBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.depengine.kvstore.Updater;
import org.depengine.kvstore.hazelcast.client.RoundClient;
import org.depengine.kvstore.hazelcast.membership.ClusterSettings;
import org.depengine.kvstore.hazelcast.membership.JobMembership;

/**
 * For tests of the rounds without an engine: a worker's {@link JobMembership} and {@link RoundClient} on
 * one instance, joined and left as {@link DistKVStore} does.
 */
final class Table implements AutoCloseable {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "table-test");
        t.setDaemon(true);
        return t;
    });
    private final JobMembership job;
    private final RoundClient client;

    Table(HazelcastInstance hz, ClusterSettings s, int rank, int workers, boolean async) {
        this(hz, s, rank, workers, async, null);
    }

    Table(HazelcastInstance hz, ClusterSettings s, int rank, int workers, boolean async, Integer resumePeriod) {
        this(hz, s, rank, workers, async, resumePeriod, false);
    }

    /** {@code elastic}: a lost worker is a view change the test hands over ({@link #changeView}). */
    Table(HazelcastInstance hz, ClusterSettings s, int rank, int workers, boolean async, Integer resumePeriod,
          boolean elastic) {
        ClusterSettings mine = new ClusterSettings(s.members(), s.port(), s.portCount(), s.bind(), s.clusterName(),
                s.client(), s.jobId(), rank, workers, s.timeoutMs(), s.joinTimeoutMs(), s.splitFloats(), s.backups(),
                s.heartbeatSeconds(), s.partitions(), s.updaterClasses(), s.updateOn(), s.dataPort());
        try {
            job = new JobMembership(hz, mine, resumePeriod, null, timer, false, -1);
        } catch (RuntimeException e) {
            timer.shutdownNow();
            throw e;
        }
        client = new RoundClient(hz, job, async, elastic, timer);
    }

    int rank() {
        return job.rank();
    }

    int resumedPeriod() {
        return job.resumedPeriod();
    }

    CompletableFuture<Void> init(String key, float[] value) {
        return client.init(key, value);
    }

    CompletableFuture<Void> push(String key, long round, float[] value, Updater updater) {
        return client.push(key, round, value, updater);
    }

    CompletableFuture<Void> push(String key, long round, FloatBuffer value, Updater updater, String label) {
        return client.push(key, round, value, updater, label);
    }

    CompletableFuture<float[]> pull(String key, long round) {
        return client.pull(key, round);
    }

    CompletableFuture<Void> pull(String key, long round, String label, FloatBuffer target) {
        return client.pull(key, round, label, target);
    }

    CompletableFuture<Void> endOfData(int period) {
        return client.endOfData(period);
    }

    CompletableFuture<Void> endOfData() {
        return client.endOfData(0);
    }

    CompletableFuture<Void> barrier() {
        return client.barrier();
    }

    /** An elastic job's view {@code epoch} of the workers at first ranks {@code places}, handed over as the store would. */
    CompletableFuture<java.util.Map<String, Long>> changeView(int epoch, int[] places) {
        return client.changeView(epoch, places);
    }

    /** The store has moved to view {@code epoch}: the values summed over it are let go. */
    void released(int epoch) {
        client.released(epoch);
    }

    void recoveryTimeout(long ms) {
        client.recoveryTimeout(ms);
    }

    @Override
    public void close() {
        job.markClosing();
        try {
            client.leave();
            job.leave(null); // a fixed-size job
        } catch (Exception e) {
            // as the store's close: logged there, ignored here (the test checks what it needs)
        }
        client.close();
        job.close();
        timer.shutdownNow();
    }
}
