/**
 * The parts every engine shares: the dependency tracker ({@code org.depengine.core.tracker}), the
 * dispatch core {@link org.depengine.core.AbstractEngine} (validation, failure rules, waits, shutdown,
 * listeners) and the worker groups threaded engines run ops on ({@code org.depengine.core.exec}).
 * An engine implementation extends {@code AbstractEngine} and decides only where a ready op runs.
 */
module org.depengine.core {
    requires transitive org.depengine.api;
    requires org.slf4j;

    exports org.depengine.core;
    // The tracker and the worker groups are the engines' building blocks, not an API: only the engine
    // modules see them (tests run on the class path, and no other module uses them).
    exports org.depengine.core.tracker to org.depengine.engine.naive, org.depengine.engine.pooled,
            org.depengine.engine.perdevice;
    exports org.depengine.core.exec to org.depengine.engine.naive, org.depengine.engine.pooled,
            org.depengine.engine.perdevice;

    provides org.depengine.api.settings.SettingsCatalog with org.depengine.core.CoreSettings;
}
