/**
 * The depengine profiler: an {@link org.depengine.api.listen.OpListener} that records every op's life
 * into bounded per-thread rings and turns them into a Chrome trace-event JSON file (for Perfetto and
 * {@code chrome://tracing}), aggregate statistics, JFR events and a self-contained HTML timeline.
 *
 * <p>Entry point: {@link org.depengine.profiler.Profiler}.
 */
module org.depengine.profiler {
    requires transitive org.depengine.api;
    requires org.slf4j;
    requires transitive jdk.jfr; // OpEvent, in the API, extends jdk.jfr.Event

    exports org.depengine.profiler;

    provides org.depengine.api.spi.EngineCreationHook with org.depengine.profiler.AutostartHook;
    provides org.depengine.api.settings.SettingsCatalog with org.depengine.profiler.ProfilerSettings;
}
