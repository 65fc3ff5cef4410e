package org.depengine.kvstore.hazelcast.membership;

import com.hazelcast.map.IMap;
import org.depengine.kvstore.KVStoreException;

/**
 * A joiner's registration in a running elastic job ({@code join=true}, {@code docs/elastic-design.md} section
 * 10): it takes the first free place after the job's first view's ranks in the job's {@code ranks} map, which
 * the members read as a pending joiner (admitted by the next view). Its place is its name on the wire for the
 * job's life; its rank comes from each view.
 *
 * @param place the place taken: the key of its entry in the {@code ranks} map, at least {@code workers}
 * @param workers the job's {@code numWorkers} (its first view's size)
 */
record Joining(int place, int workers) {
    /** Joiners the registration tries past the first view's ranks before it gives up (each place is one joiner, ever). */
    private static final int PLACES = 1 << 16;

    /**
     * Registers {@code me} as a joiner of job {@code jobId}.
     *
     * @param givenWorkers the joiner's own {@code numWorkers}, or -1 if it gave none (it takes the job's)
     * @throws KVStoreException if no job of that id has started on the cluster
     * @throws IllegalArgumentException if {@code givenWorkers} is not the job's
     */
    static Joining register(IMap<Integer, String> ranks, IMap<String, String> shared, String me, String jobId,
                            String cluster, int givenWorkers) {
        String n = shared.get(JobMembership.NUM_WORKERS);
        if (n == null) {
            throw new KVStoreException(null, -1, "no job '" + jobId + "' runs on cluster '" + cluster
                    + "': a worker opened with depengine.kvstore.join=true joins a running elastic job;"
                    + " start the job's workers first (with the same jobId), or open this one without join", null);
        }
        int workers = Integer.parseInt(n);
        if (givenWorkers >= 0 && givenWorkers != workers) {
            throw new IllegalArgumentException("a joiner of job '" + jobId + "' was opened with numWorkers="
                    + givenWorkers + ", but the job started with numWorkers=" + workers + ": give a joiner the job's "
                    + "numWorkers, or leave it unset");
        }
        for (int p = workers; p < workers + PLACES; p++) {
            // Its own id found: Hazelcast retried this put after the partition's owner left mid-call (a member
            // killed as this worker joins), and the first try had taken the place.
            String holder = ranks.putIfAbsent(p, me);
            if (holder == null || holder.equals(me)) {
                return new Joining(p, workers);
            }
        }
        throw new KVStoreException(null, -1, "job '" + jobId + "' has had " + PLACES + " joiners: no place is left", null);
    }
}
