package org.depengine.kvstore.hazelcast;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/** {@code dist_sync} (updateOn=worker, its default) passes the KVStore conformance suites. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistSyncConformanceTest extends DistConformance {
    @BeforeAll
    static void formCluster() {
        form();
    }

    @AfterAll
    static void stopCluster() {
        stop();
    }

    @Override
    String type() {
        return HazelcastKVStoreProvider.DIST_SYNC;
    }
}
