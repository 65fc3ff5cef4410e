package org.depengine.engine.naive;

import org.depengine.testkit.EngineConformance;
import org.depengine.testkit.EngineSetup;
import org.depengine.testkit.ReplayConformance;
import org.junit.jupiter.api.Nested;

/** Every testkit suite on the naive engine (no threads of its own, so no threaded rules). */
class NaiveConformanceTest extends EngineConformance {
    @Override
    public EngineSetup setup() {
        return EngineSetup.of("naive").withoutOwnThreads();
    }

    @Nested
    class Replay extends ReplayConformance { }
}
