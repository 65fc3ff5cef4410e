package org.depengine.kvstore.local;

import java.util.List;
import org.depengine.kvstore.KVStore;
import org.depengine.testkit.KVStoreConformance;
import org.depengine.testkit.StoreSetup;

/** The shared {@link KVStoreConformance} suites: the {@code local} store on the naive, pooled and perdevice engines. */
class LocalConformanceTest extends KVStoreConformance {
    @Override
    public StoreSetup store() {
        return StoreSetup.of("local", (engines, settings) -> List.<KVStore>of(LocalKVStoreTest.open(engines.get(0), settings)));
    }
}
