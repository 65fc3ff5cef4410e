package org.depengine.engine.naive;

import org.depengine.testkit.EngineConformance;
import org.depengine.testkit.EngineSetup;

/** Every testkit suite on the naive engine (no threads of its own, so no threaded rules). */
class NaiveConformanceTest extends EngineConformance {
    @Override
    public EngineSetup setup() {
        return EngineSetup.of("naive").withoutOwnThreads();
    }
}
