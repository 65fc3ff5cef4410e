/**
 * Micrometer meters for depengine, an optional module: {@link org.depengine.micrometer.EngineMeters} binds
 * an engine's {@link org.depengine.api.Engine#metrics()} to Micrometer's executor meters per worker group
 * and {@code depengine.ops.*}; {@link org.depengine.micrometer.KVStoreMeters} binds a store's
 * {@link org.depengine.kvstore.KVStore#stats()} to {@code depengine.kvstore.*}. The engine and the store
 * know nothing of Micrometer: only this module depends on it.
 */
module org.depengine.micrometer {
    requires transitive org.depengine.api;
    requires transitive org.depengine.kvstore;
    requires transitive micrometer.core;

    exports org.depengine.micrometer;
}
