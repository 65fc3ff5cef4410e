package org.depengine.kvstore.hazelcast;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@code dist_async} passes the KVStore conformance suite (its pulls see this worker's pushes, not the whole round). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistAsyncConformanceTest extends DistConformance {

    @Override
    String type() {
        return HazelcastKVStoreProvider.DIST_ASYNC;
    }
}
