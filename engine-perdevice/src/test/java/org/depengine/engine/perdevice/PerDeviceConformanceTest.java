package org.depengine.engine.perdevice;

import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.testkit.EngineConformance;
import org.depengine.testkit.EngineSetup;

/**
 * Every testkit suite on the per-device engine, with two CPU devices of two workers each (and two
 * priority workers), so workloads cross devices and independent ops overlap on each; in the
 * asynchronous configurations also on both stand-in devices, with release at launch on and off.
 */
class PerDeviceConformanceTest extends EngineConformance {
    private static final EngineSetup SETUP = EngineSetup.of("perdevice")
            .withSettings(Map.of("depengine.cpu.workers", "2", "depengine.cpu.priorityWorkers", "2"))
            .withContexts(List.of(Context.cpu(0), Context.cpu(1)))
            .withSingleWorkerSettings(Map.of("depengine.cpu.workers", "1"))
            .withReleaseAtLaunchSetting(2);

    @Override
    public EngineSetup setup() {
        return SETUP;
    }
}
