/**
 * The {@code local} KVStore: one process, values summed across its devices on the host, the updater run
 * on the host. Open it with {@code KVStore.open(engine, "local")}.
 */
module org.depengine.kvstore.local {
    requires org.depengine.kvstore;

    provides org.depengine.kvstore.spi.KVStoreProvider with org.depengine.kvstore.local.LocalKVStoreProvider;
}
