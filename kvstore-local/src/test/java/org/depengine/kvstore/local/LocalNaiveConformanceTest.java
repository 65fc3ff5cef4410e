package org.depengine.kvstore.local;

import java.util.List;
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
    protected List<KVStore> openStores(List<Engine> engines) {
        return List.of(KVStore.open(engines.get(0), "local"));
    }
}
