package org.depengine.kvstore.local;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.device.Devices;
import org.depengine.kvstore.KVStore;
import org.depengine.testkit.KVStoreConformance;
import org.depengine.testkit.StoreSetup;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared {@link KVStoreConformance} suites: the {@code local} store on the perdevice engine with values
 * and outs on {@code opencl:0} and {@code cpu:0}, so pushes and pulls copy through OpenCL queues that
 * complete asynchronously.
 */
class LocalOpenClConformanceTest extends KVStoreConformance {
    @BeforeAll
    static void needsOpenCl() {
        var a = Devices.provider("opencl").probe();
        Assumptions.assumeTrue(a.available(), "needs an OpenCL runtime (CI installs PoCL): " + a.reason());
    }

    @Override
    public StoreSetup store() {
        return StoreSetup.of("local", (engines, settings) -> List.<KVStore>of(LocalKVStoreTest.open(engines.get(0), settings)))
                .withEngines("perdevice").withDevices(List.of(Context.of("opencl", 0), Context.cpu()));
    }
}
