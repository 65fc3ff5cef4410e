package org.depengine.kvstore.local;

import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.device.Devices;
import org.depengine.kvstore.KVStore;
import org.depengine.testkit.KVStoreConformance;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared {@link KVStoreConformance} suite: the {@code local} store on the perdevice engine with
 * values and outs on {@code opencl:0} and {@code cpu:0}, so pushes and pulls copy through OpenCL queues
 * that complete asynchronously.
 */
class LocalOpenClConformanceTest extends KVStoreConformance {
    @BeforeEach
    void needsOpenCl() {
        var a = Devices.provider("opencl").probe();
        Assumptions.assumeTrue(a.available(), "needs an OpenCL runtime (CI installs PoCL): " + a.reason());
    }

    @Override
    protected String engineName() {
        return "perdevice";
    }

    @Override
    protected Map<String, String> settings() {
        return Map.of("depengine.cpu.priorityWorkers", "1");
    }

    @Override
    protected List<Context> devices() {
        return List.of(Context.of("opencl", 0), Context.cpu());
    }

    @Override
    protected List<KVStore> openStores(List<Engine> engines, Map<String, String> settings) {
        return List.of(LocalKVStoreTest.open(engines.get(0), settings));
    }
}
