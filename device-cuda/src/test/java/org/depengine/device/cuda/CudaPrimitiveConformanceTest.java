package org.depengine.device.cuda;

import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.Devices;
import org.depengine.testkit.PrimitiveConformance;
import org.depengine.testkit.Requirements;

/**
 * The primitive conformance suite on {@code cuda:0}: cuBLAS and NVRTC kernels against the host
 * reference. On a real GPU only; every test is skipped, with the probe's reason, elsewhere.
 */
class CudaPrimitiveConformanceTest extends PrimitiveConformance {
    @Override
    protected Device device() {
        Availability a = Devices.provider("cuda").probe();
        Requirements.assumeDevice("cuda", a, "needs a CUDA GPU");
        return Devices.device(Context.of("cuda", 0));
    }
}
