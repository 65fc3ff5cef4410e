package org.depengine.kvstore.hazelcast.peer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * An elastic job's barrier on a {@link PeerExchange}: waits, on the exchange's monitor, until every worker of the
 * view installed has ended a period and every round of it is summed, across view changes; fails when the job
 * cannot go on here or nothing moved for {@code timeoutMs}. A managed block: a caller on a ForkJoinPool thread (a
 * CompletableFuture's task on JDK 21+, where the common pool runs them even at parallelism 1) lets the pool add a
 * thread for the other workers' tasks.
 */
final class PeriodWait implements ForkJoinPool.ManagedBlocker {
    private final PeerExchange x;
    private final int period;
    private final String what;

    PeriodWait(PeerExchange x, int period, String what) {
        this.x = x;
        this.period = period;
        this.what = what;
    }

    void await() throws InterruptedException {
        ForkJoinPool.managedBlock(this);
    }

    @Override
    public boolean isReleasable() {
        synchronized (x) {
            return x.lost == null && x.closedThrough() >= period && !x.change.frozen();
        }
    }

    @Override
    public boolean block() throws InterruptedException {
        long wait = TimeUnit.MILLISECONDS.toNanos(x.timeoutMs);
        synchronized (x) {
            long since = System.nanoTime();
            int seen = x.closedThrough();
            int epochSeen = x.epoch;
            while (x.closedThrough() < period || x.change.frozen()) {
                if (x.lost != null) {
                    throw x.failure(null, what, x.lost);
                }
                if (x.closedThrough() != seen || x.epoch != epochSeen) {
                    seen = x.closedThrough();
                    epochSeen = x.epoch;
                    since = System.nanoTime();
                }
                long left = wait - (System.nanoTime() - since);
                if (left <= 0) {
                    throw x.failure(null, what, "no progress for " + x.timeoutMs + " ms (depengine.kvstore.timeoutMs): "
                            + "the workers that have not ended period " + period + " here: " + notClosed());
                }
                TimeUnit.NANOSECONDS.timedWait(x, left);
            }
            if (x.lost != null) {
                throw x.failure(null, what, x.lost);
            }
        }
        return true;
    }

    private String notClosed() {
        List<Integer> open = new ArrayList<>();
        for (int r = 0; r < x.workers; r++) {
            if (x.closedBy[r] < period) {
                open.add(r);
            }
        }
        return open + " of view " + x.epoch;
    }
}
