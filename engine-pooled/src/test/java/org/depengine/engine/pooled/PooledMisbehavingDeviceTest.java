package org.depengine.engine.pooled;

import org.depengine.testkit.MisbehavingDeviceConformance;

/** The shared {@link MisbehavingDeviceConformance} suite on the pooled engine. */
class PooledMisbehavingDeviceTest extends MisbehavingDeviceConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
