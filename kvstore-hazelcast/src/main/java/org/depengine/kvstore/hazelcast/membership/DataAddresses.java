package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.map.IMap;
import java.util.concurrent.TimeUnit;
import org.depengine.kvstore.KVStoreException;

/**
 * The workers' data addresses ({@code updateOn=worker}), in the job's {@code shared} map: {@code data.<place>}
 * → {@code host:port}, where a place is a worker's rank in the job's first view, or a joiner's registration.
 * Each worker publishes its own before its first round; the others read it when they connect to it.
 */
public final class DataAddresses {
    private static final String DATA_ADDRESS = "data.";

    private final IMap<String, String> shared;
    private final int place;
    private final String jobId;
    private final long timeoutMs;

    DataAddresses(IMap<String, String> shared, int place, String jobId, long timeoutMs) {
        this.shared = shared;
        this.place = place;
        this.jobId = jobId;
        this.timeoutMs = timeoutMs;
    }

    /** Publishes this worker's data address ({@code host:port}) for the others. Call before the first round. */
    public void publish(String address) {
        shared.put(DATA_ADDRESS + place, address);
    }

    /**
     * The data address of the worker at place {@code p}, waiting for it to be published (up to the join timeout).
     *
     * @throws KVStoreException if it is not published in time
     */
    public String of(int p) {
        return of(p, timeoutMs);
    }

    /**
     * The data address of the worker at place {@code p}, waiting up to {@code waitMs} for it to be published.
     *
     * @throws KVStoreException if it is not published in time
     */
    public String of(int p, long waitMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        String a;
        while ((a = shared.get(DATA_ADDRESS + p)) == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new KVStoreException(null, place, "worker " + p + " of job '" + jobId + "' did not publish its data "
                        + "address within " + waitMs + " ms", null);
            }
            try {
                Thread.sleep(10); // a publication that has not reached this member yet: seen within one map read
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KVStoreException(null, place, "interrupted while waiting for worker " + p + "'s data address", e);
            }
        }
        return a;
    }
}
