package org.depengine.profiler;

import java.nio.file.Path;
import java.time.Duration;
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
        org.depengine.api.settings.Settings props = org.depengine.api.settings.Settings.fromSystemProperties();
        b.mode(props.get(ProfilerSettings.MODE));
        props.find(ProfilerSettings.FILE).ifPresent(b::file);
        props.find(ProfilerSettings.HTML_FILE).ifPresent(b::htmlFile);
        b.dumpPeriod(props.get(ProfilerSettings.DUMP_PERIOD));
        b.ringCapacity(props.get(ProfilerSettings.RING_CAPACITY));
        b.maxThreads(props.get(ProfilerSettings.MAX_THREADS));
        return b;
    }

    /**
     * Whether {@value Profiler#AUTOSTART_PROPERTY} asks for autostart.
     *
     * @throws IllegalArgumentException if it is set to something other than true or false
     */
    static boolean autostartRequested() {
        return EngineConfig.system(ProfilerSettings.AUTOSTART);
    }
}
