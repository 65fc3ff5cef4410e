package org.depengine.kvstore.hazelcast;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@code dist_sync} (updateOn=worker, its default) passes the KVStore conformance suites. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistSyncConformanceTest extends DistConformance {

    @Override
    String type() {
        return HazelcastKVStoreProvider.DIST_SYNC;
    }
}
