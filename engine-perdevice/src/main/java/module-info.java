/**
 * The per-device engine ({@code perdevice}, the default): worker blocks per device, a CPU priority
 * pool, and per-device compute, copy and priority workers that own their streams.
 */
module org.depengine.engine.perdevice {
    requires org.depengine.core;
    requires org.slf4j;

    provides org.depengine.api.spi.EngineProvider with org.depengine.engine.perdevice.PerDeviceEngineProvider;

    provides org.depengine.api.settings.SettingsCatalog with org.depengine.engine.perdevice.PerDeviceSettings;
}
