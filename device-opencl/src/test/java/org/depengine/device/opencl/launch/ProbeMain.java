package org.depengine.device.opencl.launch;

import org.depengine.api.device.Availability;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;

/**
 * Run in a child JVM by {@code OpenClLaunchTest}: prints what the {@code opencl} provider reports. In its
 * own package so that it can run from the class path while {@code org.depengine.device.opencl} is a named
 * module on the module path.
 */
public final class ProbeMain {
    private ProbeMain() {
    }

    public static void main(String[] args) {
        DeviceProvider p = Devices.provider("opencl");
        Availability a = p.probe();
        System.out.println("module=" + p.getClass().getModule().getName());
        System.out.println("probe=" + a);
        System.out.println("count=" + p.deviceCount());
        if (a.available()) {
            System.out.println("device0=" + p.device(0).description());
        }
        System.out.println("end");
    }
}
