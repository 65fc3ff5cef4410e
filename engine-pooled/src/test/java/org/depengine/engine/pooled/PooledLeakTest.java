package org.depengine.engine.pooled;

import org.depengine.testkit.LeakConformance;

/** The shared {@link LeakConformance} suite on the pooled engine. */
class PooledLeakTest extends LeakConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
