package org.depengine.engine.pooled;

import org.depengine.testkit.OrderingConformance;

/** The shared {@link OrderingConformance} suite on the pooled engine. */
class PooledOrderingTest extends OrderingConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
