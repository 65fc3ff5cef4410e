package org.depengine.kvstore.hazelcast.membership;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.depengine.kvstore.hazelcast.membership.ViewChange.Departure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An elastic job's bound on a pause ({@code docs/elastic-design.md}, section 5): once a view below
 * {@code minWorkers} is applied, a deadline of {@code minWorkersWaitMs}; a view back at {@code minWorkers}
 * (joiners admitted) ends the pause, and a deadline reached says who left and when. Guarded by the lock the
 * owner gives; the deadline runs on the owner's timer.
 */
final class PauseDeadline {
    private static final Logger LOG = LoggerFactory.getLogger(PauseDeadline.class);
    static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    private final String name;
    private final ElasticSettings settings;
    private final ScheduledExecutorService timer;
    private final Object lock;
    private final Consumer<String> expired;
    /** Since when the applied view has fewer than minWorkers members, or null; with who left meanwhile. */
    private Instant pausedSince;
    private final List<Departure> left = new ArrayList<>();
    private int size;
    private ScheduledFuture<?> deadline;

    /**
     * @param lock guards this (the owner's lock, held by every caller)
     * @param expired told, off the lock, why the job fails when the deadline is reached while still paused
     */
    PauseDeadline(String name, ElasticSettings settings, ScheduledExecutorService timer, Object lock,
                  Consumer<String> expired) {
        this.name = name;
        this.settings = settings;
        this.timer = timer;
        this.lock = lock;
        this.expired = expired;
    }

    /** Under the lock: the view of {@code change} is applied; starts the deadline when below minWorkers, ends it when back. */
    void applied(ViewChange change) {
        if (!change.paused()) {
            pausedSince = null;
            left.clear();
            cancel();
            return;
        }
        left.addAll(change.left());
        size = change.numWorkers();
        if (pausedSince == null) {
            pausedSince = Instant.now();
            try {
                deadline = timer.schedule(this::reached, settings.minWorkersWait().toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                LOG.debug("{}: the timer refused the minWorkers deadline ({})", name, e.toString());
            }
        }
    }

    /** Under the lock: no deadline any more (the job failed or closed). */
    void cancel() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    /** The deadline: the job is still below minWorkers. */
    private void reached() {
        String message;
        synchronized (lock) {
            if (pausedSince == null) {
                return; // back at minWorkers meanwhile
            }
            StringBuilder who = new StringBuilder();
            for (Departure d : left) {
                who.append(who.length() == 0 ? "" : ", ").append("rank ").append(d.rank()).append(" (member ")
                        .append(d.member()).append(") left the cluster at ").append(CLOCK.format(d.detectedAt()))
                        .append(" (").append(d.why()).append(")");
            }
            message = name + " has " + size + " of minWorkers=" + settings.minWorkers() + " workers since "
                    + CLOCK.format(pausedSince) + ": " + who + "; no worker joined within minWorkersWaitMs="
                    + settings.minWorkersWait().toMillis();
        }
        expired.accept(message);
    }
}
