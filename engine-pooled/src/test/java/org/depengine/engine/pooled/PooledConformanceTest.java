package org.depengine.engine.pooled;

import java.util.Map;
import org.depengine.testkit.EngineConformance;
import org.depengine.testkit.EngineSetup;

/** Every testkit suite on the pooled engine with two workers, so independent ops overlap even on a small machine. */
class PooledConformanceTest extends EngineConformance {
    private static final EngineSetup SETUP = EngineSetup.of("pooled")
            .withSettings(Map.of("depengine.pooled.workers", "2"))
            .withSingleWorkerSettings(Map.of("depengine.pooled.workers", "1"));

    @Override
    public EngineSetup setup() {
        return SETUP;
    }
}
