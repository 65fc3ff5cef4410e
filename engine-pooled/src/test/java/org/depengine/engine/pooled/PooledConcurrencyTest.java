package org.depengine.engine.pooled;

import org.depengine.testkit.ConcurrencyConformance;

/** The shared {@link ConcurrencyConformance} suite on the pooled engine. */
class PooledConcurrencyTest extends ConcurrencyConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
