/**
 * The {@code dist_sync} and {@code dist_async} KVStores on a Hazelcast cluster: keys sharded over the
 * members by partition, the updater run on each key's owner, rounds, end of data and lost workers
 * kept in map entries and seen through entry and membership listeners (no CP subsystem).
 */
module org.depengine.kvstore.hazelcast {
    requires org.depengine.api;
    requires transitive com.hazelcast.core; // HazelcastKVStoreProvider.open takes an instance
    requires transitive org.depengine.kvstore;
    requires org.slf4j;
    requires io.netty.transport; // updateOn=worker's data transport
    requires io.netty.buffer;
    requires io.netty.common;
    // Hazelcast is an automatic module: it reads every resolved module but makes none resolve. It
    // needs Java SE (JMX, SQL types), sun.misc.Unsafe (jdk.unsupported) and jdk.net's socket options.
    requires java.se;
    requires jdk.unsupported;
    requires jdk.net;

    exports org.depengine.kvstore.hazelcast;

    provides org.depengine.kvstore.spi.KVStoreProvider with org.depengine.kvstore.hazelcast.HazelcastKVStoreProvider;
    provides org.depengine.api.settings.SettingsCatalog with org.depengine.kvstore.hazelcast.HazelcastSettings;
}
