/**
 * The KVStore API: a key → array store whose {@code push} and {@code pull} are ops of the dependency
 * engine ({@link org.depengine.kvstore.KVStore}), and the SPI its implementations provide
 * ({@link org.depengine.kvstore.spi.KVStoreProvider}, on top of
 * {@link org.depengine.kvstore.spi.AbstractKVStore}). Implementations are found with
 * {@link java.util.ServiceLoader}.
 */
module org.depengine.kvstore {
    requires transitive org.depengine.api;
    requires org.slf4j;

    exports org.depengine.kvstore;
    exports org.depengine.kvstore.spi;
    exports org.depengine.kvstore.optimizers;

    uses org.depengine.kvstore.spi.KVStoreProvider;

    provides org.depengine.api.settings.SettingsCatalog with org.depengine.kvstore.spi.KVStoreSettingsCatalog;
}
