package org.depengine.kvstore.local;

import java.util.List;
import java.util.Map;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.testkit.KVStoreConformance;

/** The shared {@link KVStoreConformance} suite: the {@code local} store on the perdevice engine. */
class LocalPerDeviceConformanceTest extends KVStoreConformance {
    @Override
    protected String engineName() {
        return "perdevice";
    }

    /** One CPU priority worker, so that the priority case is deterministic. */
    @Override
    protected Map<String, String> settings() {
        return Map.of("depengine.cpu.priorityWorkers", "1");
    }

    @Override
    protected List<KVStore> openStores(List<Engine> engines, Map<String, String> settings) {
        return List.of(LocalKVStoreTest.open(engines.get(0), settings));
    }
}
