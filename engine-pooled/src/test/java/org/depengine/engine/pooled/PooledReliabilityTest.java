package org.depengine.engine.pooled;

import org.depengine.testkit.ReliabilityConformance;

/** The shared {@link ReliabilityConformance} suite on the pooled engine. */
class PooledReliabilityTest extends ReliabilityConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
