package org.depengine.profiler;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/** The profiler's settings, read by {@link Profiler.Builder#fromSystemProperties()} and {@link Profiler#autostart}. */
public final class ProfilerSettings implements SettingsCatalog {
    /** {@value Profiler#AUTOSTART_PROPERTY}. */
    public static final Setting<Boolean> AUTOSTART = Setting.ofBoolean(Profiler.AUTOSTART_PROPERTY, false,
            "Attach a profiler to every engine when it is created, writing its trace when the engine closes.");
    /** {@value Profiler#FILE_PROPERTY}. */
    public static final Setting<Path> FILE = path(Profiler.FILE_PROPERTY, Path.of(Profiler.DEFAULT_FILE),
            Profiler.DEFAULT_FILE, "The trace file (Chrome trace-event JSON, for Perfetto) of an autostarted profiler.");
    /** {@value Profiler#HTML_FILE_PROPERTY}. */
    public static final Setting<Path> HTML_FILE = path(Profiler.HTML_FILE_PROPERTY, null, "none",
            "An HTML timeline written next to each final dump.");
    /** {@value Profiler#MODE_PROPERTY}. */
    public static final Setting<Profiler.Mode> MODE = Setting.ofChoice(Profiler.MODE_PROPERTY, Profiler.Mode.class,
            Profiler.Mode.ALL, "Which ops are recorded: all, or only those pushed with profiling = true.");
    /** {@value Profiler#DUMP_PERIOD_PROPERTY}. */
    public static final Setting<Duration> DUMP_PERIOD = Setting.ofMillis(Profiler.DUMP_PERIOD_PROPERTY, Duration.ZERO,
            Duration.ZERO, Duration.ofMillis(Long.MAX_VALUE), "Rewrite the trace file at this period while running; 0: only at the end.");
    /** {@value Profiler#RING_CAPACITY_PROPERTY}. */
    public static final Setting<Integer> RING_CAPACITY = Setting.ofInt(Profiler.RING_CAPACITY_PROPERTY,
            Profiler.DEFAULT_RING_CAPACITY, Settings.MIN_RING_CAPACITY, Settings.MAX_RING_CAPACITY,
            "Records kept per recording thread (32 bytes each), rounded up to a power of two; the oldest are overwritten.");
    /** {@value Profiler#MAX_THREADS_PROPERTY}. */
    public static final Setting<Integer> MAX_THREADS = Setting.ofInt(Profiler.MAX_THREADS_PROPERTY,
            Profiler.DEFAULT_MAX_THREADS, 1, Settings.MAX_MAX_THREADS, "The most threads that get a recording ring.");

    /** For {@link java.util.ServiceLoader}. */
    public ProfilerSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(AUTOSTART, FILE, HTML_FILE, MODE, DUMP_PERIOD, RING_CAPACITY, MAX_THREADS);
    }

    private static Setting<Path> path(String key, Path dflt, String dfltText, String description) {
        return Setting.of(key, "a file path", dflt, dfltText, description, t -> {
            if (t.isEmpty()) {
                throw new IllegalArgumentException("empty");
            }
            try {
                return Path.of(t);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        });
    }
}
