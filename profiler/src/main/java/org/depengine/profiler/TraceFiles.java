package org.depengine.profiler;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a profiler's outputs (trace JSON, HTML timeline) atomically, one at a time, and rate-limits
 * the warning about dropped records. Thread-safe. Not part of the API.
 */
final class TraceFiles {
    private static final Logger LOG = LoggerFactory.getLogger(TraceFiles.class);
    private static final long WARN_INTERVAL_NANOS = 60_000_000_000L;
    private static final AtomicLong TEMP_COUNTER = new AtomicLong();

    private final Object lock = new Object();
    private long lastWarnNanos; // guarded by lock

    /** What goes into a file. */
    interface Body {
        void write(Writer w) throws IOException;
    }

    /** Writes the trace JSON of {@code model}; warns (rate-limited) when records were dropped. */
    void dumpJson(TraceModel model, Path path, int ringCapacity) throws IOException {
        write(path, w -> TraceWriter.write(model, w));
        if (model.dropped > 0 && shouldWarn()) {
            LOG.warn("profiler dropped {} records (ring capacity {} per thread; raise -D{}); {} ops incomplete; wrote {}",
                    model.dropped, ringCapacity, Profiler.RING_CAPACITY_PROPERTY, model.incomplete, path);
        } else {
            LOG.debug("profiler wrote {} ops to {}", model.ops.size(), path);
        }
    }

    /**
     * Writes to a temporary file in the same directory, then moves it into place atomically (where
     * the file system can), so a reader never sees a partial file.
     *
     * @throws IOException if writing fails (the previous file, if any, is left as it was)
     */
    void write(Path path, Body body) throws IOException {
        Path abs = path.toAbsolutePath();
        Path dir = abs.getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        synchronized (lock) {
            // createTempFile would make the file owner-only (0600) and the move would keep that; a plain
            // CREATE_NEW file gets the usual permissions (umask), as a file written in place would.
            Path tmp = abs.resolveSibling("." + abs.getFileName() + "." + ProcessHandle.current().pid() + "."
                    + TEMP_COUNTER.incrementAndGet() + ".tmp");
            try {
                try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    body.write(w);
                }
                try {
                    Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /**
     * Whether this dump should log its drops as a warning: the first time, then at most once a minute,
     * so a periodic dump every few milliseconds does not flood the log.
     */
    private boolean shouldWarn() {
        long now = System.nanoTime();
        synchronized (lock) {
            if (lastWarnNanos != 0 && now - lastWarnNanos < WARN_INTERVAL_NANOS) {
                return false;
            }
            lastWarnNanos = now;
            return true;
        }
    }
}
