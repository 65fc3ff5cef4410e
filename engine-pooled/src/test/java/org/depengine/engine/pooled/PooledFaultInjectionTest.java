package org.depengine.engine.pooled;

import org.depengine.testkit.FaultInjectionConformance;

/** The shared {@link FaultInjectionConformance} suite on the pooled engine. */
class PooledFaultInjectionTest extends FaultInjectionConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
