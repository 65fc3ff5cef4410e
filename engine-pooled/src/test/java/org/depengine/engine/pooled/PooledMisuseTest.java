package org.depengine.engine.pooled;

import org.depengine.testkit.MisuseConformance;

/** The shared {@link MisuseConformance} suite on the pooled engine. */
class PooledMisuseTest extends MisuseConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }

    @Override
    protected java.util.Map<String, String> settings() {
        return java.util.Map.of("depengine.pooled.workers", "2");
    }
}
