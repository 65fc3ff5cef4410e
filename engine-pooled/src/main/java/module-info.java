/** The pooled engine ({@code pooled}): one shared worker queue for compute, one for copies. */
module org.depengine.engine.pooled {
    requires org.depengine.core;
    requires org.slf4j;

    provides org.depengine.api.spi.EngineProvider with org.depengine.engine.pooled.PooledEngineProvider;

    provides org.depengine.api.settings.SettingsCatalog with org.depengine.engine.pooled.PooledSettings;
}
