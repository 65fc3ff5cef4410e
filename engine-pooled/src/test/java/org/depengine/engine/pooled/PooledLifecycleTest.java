package org.depengine.engine.pooled;

import org.depengine.testkit.LifecycleConformance;

/** The shared {@link LifecycleConformance} suite on the pooled engine. */
class PooledLifecycleTest extends LifecycleConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
