package org.depengine.engine.pooled;

import org.depengine.testkit.FailureConformance;

/** The shared {@link FailureConformance} suite on the pooled engine. */
class PooledFailureTest extends FailureConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
