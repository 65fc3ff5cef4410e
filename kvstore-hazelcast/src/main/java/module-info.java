/**
 * The {@code dist_sync} and {@code dist_async} KVStores. Hazelcast keeps each job's membership, its
 * barriers and the workers' data addresses, and sees lost workers (no CP subsystem). {@code dist_sync}'s
 * default ({@code updateOn=worker}) sums each round over the workers' own Netty transport and runs the
 * updater on every worker; {@code updateOn=server} and {@code dist_async} keep the keys in Hazelcast map
 * entries sharded over the members, summed and updated by entry processors on each key's owner.
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
