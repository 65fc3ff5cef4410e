package org.depengine.kvstore.hazelcast;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@code dist_sync} with {@code updateOn=server} (the updater where each key lives, backups) passes the KVStore conformance suites. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistSyncServerConformanceTest extends DistConformance {

    @Override
    String type() {
        return HazelcastKVStoreProvider.DIST_SYNC;
    }

    @Override
    Map<String, String> extra() {
        return Map.of("updateOn", "server");
    }
}
