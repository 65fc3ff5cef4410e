package org.depengine.device.cpu;

import java.util.Optional;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.Devices;
import org.depengine.testkit.PrimitiveConformance;

/** The primitive conformance suite on {@code cpu:0}, with {@code cpu:1} as the sibling device. */
class CpuPrimitiveConformanceTest extends PrimitiveConformance {
    @Override
    protected Device device() {
        return Devices.device(Context.cpu(0));
    }

    @Override
    protected Optional<Device> siblingDevice() {
        return Optional.of(Devices.device(Context.cpu(1)));
    }
}
