package org.depengine.kvstore.local;

import java.util.List;
import java.util.Map;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.testkit.KVStoreConformance;

/** The shared {@link KVStoreConformance} suite: the {@code local} store on the naive engine. */
class LocalNaiveConformanceTest extends KVStoreConformance {
    @Override
    protected String engineName() {
        return "naive";
    }

    @Override
    protected List<KVStore> openStores(List<Engine> engines, Map<String, String> settings) {
        return List.of(LocalKVStoreTest.open(engines.get(0), settings));
    }
}
