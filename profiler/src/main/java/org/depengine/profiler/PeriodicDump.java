package org.depengine.profiler;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a running profiler's trace file at a fixed period, on a daemon thread of its own. Made by
 * {@link Profiler#start} when {@link Settings#periodic()}, under the profiler's lock; {@link #cancel()}
 * is called under that lock too, {@link #awaitLastDump()} after it, outside the lock.
 */
final class PeriodicDump {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicDump.class);

    /** The dump itself: {@link Profiler#dump(Path)}. */
    interface Target {
        void dump(Path path) throws IOException;
    }

    private final ScheduledExecutorService executor;
    private final Path file;

    PeriodicDump(Target target, Settings settings) {
        this.file = settings.file();
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "depengine-profiler-dump");
            t.setDaemon(true);
            return t;
        });
        long ms = Math.max(1, settings.dumpPeriod().toMillis());
        executor.scheduleWithFixedDelay(() -> {
            try {
                target.dump(file);
            } catch (IOException | RuntimeException e) {
                // keep the schedule alive: a transient failure (disk full) must not end periodic dumps
                LOG.warn("profiler: periodic dump to {} failed", file, e);
            }
        }, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Cancels the schedule; a dump already running is not interrupted. */
    void cancel() {
        executor.shutdown();
    }

    /**
     * Waits (10 s at most) for a dump that was running when {@link #cancel()} was called, so that it
     * neither races the profiler's final dump nor leaves its temporary file behind.
     */
    void awaitLastDump() {
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("profiler: a periodic dump to {} is still running after 10 s", file);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
