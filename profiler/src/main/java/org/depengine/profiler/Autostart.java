package org.depengine.profiler;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Engine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process-wide registry of autostarted profilers (see {@link Profiler#autostart(Engine)}): numbers
 * their files and stops those still running at JVM exit. Not part of the API.
 */
final class Autostart {
    private static final Logger LOG = LoggerFactory.getLogger(Autostart.class);
    private static final List<Profiler> RUNNING = new ArrayList<>(); // guarded by itself
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static boolean hookInstalled; // guarded by RUNNING

    private Autostart() {
    }

    static Optional<Profiler> start(Engine engine) {
        if (!Settings.autostartRequested()) {
            return Optional.empty();
        }
        Profiler.Builder b = Profiler.Builder.fromSystemProperties();
        int n = COUNT.incrementAndGet();
        Path f = b.file() != null ? b.file() : Path.of(Profiler.DEFAULT_FILE);
        b.file(n == 1 ? f : numbered(f, n));
        if (b.htmlFile() != null && n > 1) {
            b.htmlFile(numbered(b.htmlFile(), n));
        }
        Profiler p = b.build();
        p.start(engine);
        synchronized (RUNNING) {
            RUNNING.add(p);
            if (!hookInstalled) {
                hookInstalled = true;
                Runtime.getRuntime().addShutdownHook(new Thread(Autostart::stopAll, "depengine-profiler-exit"));
            }
        }
        LOG.info("profiler autostarted on engine '{}': mode {}, file {}", engine.name(), p.mode(), b.file().toAbsolutePath());
        return Optional.of(p);
    }

    /** Drops a stopped profiler, so that the registry does not keep it (and its rings) alive. */
    static void forget(Profiler p) {
        synchronized (RUNNING) {
            RUNNING.remove(p);
        }
    }

    static Path numbered(Path f, int n) {
        String name = f.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String numbered = dot > 0 ? name.substring(0, dot) + "-" + n + name.substring(dot) : name + "-" + n;
        return f.resolveSibling(numbered);
    }

    private static void stopAll() {
        List<Profiler> all;
        synchronized (RUNNING) {
            all = new ArrayList<>(RUNNING);
            RUNNING.clear();
        }
        for (Profiler p : all) {
            p.stop();
        }
    }
}
