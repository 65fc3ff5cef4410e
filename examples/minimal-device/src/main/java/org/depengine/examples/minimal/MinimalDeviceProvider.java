package org.depengine.examples.minimal;

import org.depengine.api.Context;
import org.depengine.api.device.AbstractDeviceProvider;
import org.depengine.api.device.Availability;
import org.depengine.api.device.SynchronousDevice;

/** Device type "minimal": two devices whose work runs on the thread that drives them. */
public final class MinimalDeviceProvider extends AbstractDeviceProvider<SynchronousDevice> {
    public MinimalDeviceProvider() {
        super("minimal");
    }

    @Override
    protected Availability detect() {
        return Availability.yes(); // probe the hardware here; Availability.no(reason) if it is missing
    }

    @Override
    protected int countDevices() {
        return 2;
    }

    @Override
    protected SynchronousDevice open(int id) {
        return new SynchronousDevice(Context.of("minimal", id), "minimal device " + id) { };
    }
}
