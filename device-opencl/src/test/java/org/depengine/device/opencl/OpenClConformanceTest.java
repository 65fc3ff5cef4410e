package org.depengine.device.opencl;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.device.Devices;
import org.depengine.testkit.ConcurrencyConformance;
import org.depengine.testkit.EngineSetup;
import org.depengine.testkit.EngineUnderTest;
import org.depengine.testkit.OrderingConformance;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The shared ordering and concurrency suites on the per-device engine with ops on {@code opencl:0}:
 * each op runs on a device worker that owns an OpenCL queue, and completes only when the OpenCL marker
 * the stream policy records after it has fired (asynchronous device completion), mixed with CPU ops.
 */
class OpenClConformanceTest implements EngineUnderTest {
    private static final EngineSetup SETUP = EngineSetup.of("perdevice")
            .withContexts(List.of(Context.of("opencl", 0), Context.cpu()));

    @Override
    public EngineSetup setup() {
        return SETUP;
    }

    @BeforeEach
    void needsOpenCl() {
        var a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL runtime (CI installs PoCL)");
    }

    @Nested
    class Ordering extends OrderingConformance { }

    @Nested
    class Concurrency extends ConcurrencyConformance { }
}
