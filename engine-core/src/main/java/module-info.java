/**
 * The parts every engine shares. An engine is an {@link org.depengine.core.AbstractEngine} made with
 * its {@link org.depengine.core.DispatchPolicy}, the one interface through which engines differ (where
 * a ready op runs, whether a device op is released at launch); everything else is the core's. Its
 * packages: {@code dispatch} (push, register, dispatch, run), {@code tracker} (variables and their
 * queues, the op in parts), {@code wait} (waits, failures, the pending count, diagnostics),
 * {@code device} (an engine's devices, launch and fences), {@code replay} (capture, graphs that replay
 * themselves), {@code bulk}, and {@code exec} (the worker groups threaded engines run ops on).
 */
module org.depengine.core {
    requires transitive org.depengine.api;
    requires org.slf4j;

    exports org.depengine.core;
    // The tracker, the worker groups and the devices are the engines' building blocks, not an API: only
    // the engine modules see them (tests run on the class path, and no other module uses them).
    exports org.depengine.core.tracker to org.depengine.engine.naive, org.depengine.engine.pooled,
            org.depengine.engine.perdevice;
    exports org.depengine.core.exec to org.depengine.engine.naive, org.depengine.engine.pooled,
            org.depengine.engine.perdevice;
    exports org.depengine.core.device to org.depengine.engine.naive, org.depengine.engine.pooled,
            org.depengine.engine.perdevice;

    provides org.depengine.api.settings.SettingsCatalog with org.depengine.core.CoreSettings;
}
