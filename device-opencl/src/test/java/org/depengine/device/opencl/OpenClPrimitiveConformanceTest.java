package org.depengine.device.opencl;

import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.Devices;
import org.depengine.testkit.PrimitiveConformance;
import org.depengine.testkit.Requirements;

/** The primitive conformance suite on {@code opencl:0} (PoCL's CPU device in CI). */
class OpenClPrimitiveConformanceTest extends PrimitiveConformance {
    @Override
    protected Device device() {
        Availability a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL platform (CI installs PoCL)");
        return Devices.device(Context.of("opencl", 0));
    }
}
