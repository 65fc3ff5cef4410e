package org.depengine.engine.pooled;

import org.depengine.testkit.ThreadedConformance;

/** The shared {@link ThreadedConformance} suite on the pooled engine. */
class PooledThreadedTest extends ThreadedConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }

    @Override
    protected java.util.Map<String, String> singleWorkerSettings() {
        return java.util.Map.of("depengine.pooled.workers", "1");
    }
}
