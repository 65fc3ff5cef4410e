package org.depengine.engine.perdevice;

import org.depengine.testkit.FaultInjectionConformance;

/** The shared {@link FaultInjectionConformance} suite on the perdevice engine. */
class PerDeviceFaultInjectionTest extends FaultInjectionConformance {
    @Override
    protected String engineName() {
        return "perdevice";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.cpu.workers", "2", "depengine.cpu.priorityWorkers", "2");
    }

    @Override
    protected java.util.List<org.depengine.api.Context> contexts() {
        return java.util.List.of(org.depengine.api.Context.cpu(0), org.depengine.api.Context.cpu(1));
    }
}
