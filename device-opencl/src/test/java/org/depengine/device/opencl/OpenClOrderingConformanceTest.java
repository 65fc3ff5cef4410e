package org.depengine.device.opencl;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.device.Devices;
import org.depengine.testkit.OrderingConformance;
import org.junit.jupiter.api.BeforeEach;
import org.depengine.testkit.Requirements;

/**
 * The shared {@link OrderingConformance} suite on the per-device engine with ops on {@code opencl:0}: each op runs
 * on a device worker that owns an OpenCL queue, and completes only when the OpenCL marker the stream
 * policy records after it has fired (asynchronous device completion), mixed with CPU ops.
 */
class OpenClOrderingConformanceTest extends OrderingConformance {
    @BeforeEach
    void needsOpenCl() {
        var a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL runtime (CI installs PoCL)");
    }

    @Override
    protected String engineName() {
        return "perdevice";
    }

    @Override
    protected List<Context> contexts() {
        return List.of(Context.of("opencl", 0), Context.cpu());
    }
}
