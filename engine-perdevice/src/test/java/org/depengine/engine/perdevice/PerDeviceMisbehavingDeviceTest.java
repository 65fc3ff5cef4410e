package org.depengine.engine.perdevice;

import org.depengine.testkit.MisbehavingDeviceConformance;

/** The shared {@link MisbehavingDeviceConformance} suite on the perdevice engine. */
class PerDeviceMisbehavingDeviceTest extends MisbehavingDeviceConformance {
    @Override
    protected String engineName() {
        return "perdevice";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.cpu.workers", "2", "depengine.cpu.priorityWorkers", "2");
    }
}
