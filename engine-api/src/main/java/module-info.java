/**
 * The depengine API: {@link org.depengine.api.Engine} and its value types, the engine SPI
 * ({@link org.depengine.api.spi.EngineProvider}), the device SPI ({@link org.depengine.api.device}),
 * the device primitives ({@link org.depengine.api.device.primitive}) and the op-lifecycle listener SPI ({@link org.depengine.api.listen}) and the settings
 * ({@link org.depengine.api.settings}).
 *
 * <p>No engine and no device is implemented here. Engines and devices are found with
 * {@link java.util.ServiceLoader}; on the module path a provider declares {@code provides}, on the
 * class path a {@code META-INF/services} file.
 */
module org.depengine.api {
    requires org.slf4j;

    exports org.depengine.api;
    exports org.depengine.api.spi;
    exports org.depengine.api.device;
    exports org.depengine.api.device.primitive;
    exports org.depengine.api.listen;
    exports org.depengine.api.settings;

    uses org.depengine.api.spi.EngineProvider;
    uses org.depengine.api.spi.EngineCreationHook;
    uses org.depengine.api.device.DeviceProvider;
    uses org.depengine.api.settings.SettingsCatalog;

    provides org.depengine.api.settings.SettingsCatalog with org.depengine.api.internal.ApiSettings;
}
