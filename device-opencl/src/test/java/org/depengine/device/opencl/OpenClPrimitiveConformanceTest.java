package org.depengine.device.opencl;

import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.Devices;
import org.depengine.testkit.PrimitiveConformance;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.AfterAll;

/**
 * The primitive conformance suite on {@code opencl:0} (PoCL's CPU device in CI). The class holds the
 * device ({@link Devices#acquire}) from its first test to the end, then gives it back, which closes it
 * (no engine of this JVM holds it then).
 */
class OpenClPrimitiveConformanceTest extends PrimitiveConformance {
    private static final Context CL0 = Context.of("opencl", 0);
    private static Device held;

    @Override
    protected Device device() {
        Availability a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL platform (CI installs PoCL)");
        if (held == null) {
            held = Devices.acquire(CL0);
        }
        return held;
    }

    @AfterAll
    static void giveBack() {
        if (held != null) {
            held = null;
            Devices.release(CL0);
        }
    }
}
