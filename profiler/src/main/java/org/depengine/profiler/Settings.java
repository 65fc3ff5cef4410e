package org.depengine.profiler;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.depengine.api.spi.EngineConfig;

/**
 * A profiler's configuration as {@link Profiler.Builder#build()} froze it, and the reading of the
 * {@code depengine.profiler.*} system properties into a builder. Not part of the API.
 */
record Settings(Profiler.Mode mode, int ringCapacity, int maxThreads, Path file, Path htmlFile, Duration dumpPeriod,
                int maxHtmlOps, boolean jfr) {

    static final int MIN_RING_CAPACITY = 16;
    static final int MAX_RING_CAPACITY = 1 << 26;
    static final int MAX_MAX_THREADS = 65536;

    /** Whether the trace file is rewritten periodically while running. */
    boolean periodic() {
        return file != null && !dumpPeriod.isZero();
    }

    /**
     * Applies the set {@code depengine.profiler.*} properties (see
     * {@link Profiler.Builder#fromSystemProperties()}) to {@code b}.
     *
     * @throws IllegalArgumentException naming the property whose value is invalid
     */
    static Profiler.Builder readSystemProperties(Profiler.Builder b) {
        String m = prop(Profiler.MODE_PROPERTY);
        if (m != null) {
            switch (m.toLowerCase(Locale.ROOT)) {
                case "all":
                    b.mode(Profiler.Mode.ALL);
                    break;
                case "flagged":
                    b.mode(Profiler.Mode.FLAGGED);
                    break;
                default:
                    throw new IllegalArgumentException("-D" + Profiler.MODE_PROPERTY + "=" + m + " is not valid: use 'all' or 'flagged'");
            }
        }
        String f = prop(Profiler.FILE_PROPERTY);
        if (f != null) {
            b.file(Path.of(f));
        }
        String h = prop(Profiler.HTML_FILE_PROPERTY);
        if (h != null) {
            b.htmlFile(Path.of(h));
        }
        long period = longProp(Profiler.DUMP_PERIOD_PROPERTY, 0);
        if (period < 0) {
            throw new IllegalArgumentException("-D" + Profiler.DUMP_PERIOD_PROPERTY + " must be >= 0, got " + period);
        }
        b.dumpPeriod(Duration.ofMillis(period));
        long cap = longProp(Profiler.RING_CAPACITY_PROPERTY, Profiler.DEFAULT_RING_CAPACITY);
        if (cap < MIN_RING_CAPACITY || cap > MAX_RING_CAPACITY) {
            throw new IllegalArgumentException("-D" + Profiler.RING_CAPACITY_PROPERTY + " must be in [16, 67108864], got " + cap);
        }
        b.ringCapacity((int) cap);
        long threads = longProp(Profiler.MAX_THREADS_PROPERTY, Profiler.DEFAULT_MAX_THREADS);
        if (threads < 1 || threads > MAX_MAX_THREADS) {
            throw new IllegalArgumentException("-D" + Profiler.MAX_THREADS_PROPERTY + " must be in [1, 65536], got " + threads);
        }
        b.maxThreads((int) threads);
        return b;
    }

    /**
     * Whether {@value Profiler#AUTOSTART_PROPERTY} asks for autostart.
     *
     * @throws IllegalArgumentException if it is set to something other than true or false
     */
    static boolean autostartRequested() {
        // Blank counts as unset here (a bare -D switch), as for the profiler's other settings (prop).
        return prop(Profiler.AUTOSTART_PROPERTY) != null
                && EngineConfig.systemBoolean(Profiler.AUTOSTART_PROPERTY, false, "attach a profiler to every engine when it is created");
    }

    private static String prop(String name) {
        String v = System.getProperty(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static long longProp(String name, long dflt) {
        String v = prop(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + name + "=" + v + " is not an integer", e);
        }
    }
}
