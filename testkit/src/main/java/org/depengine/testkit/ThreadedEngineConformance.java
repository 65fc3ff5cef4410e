package org.depengine.testkit;

import org.junit.jupiter.api.Nested;

/**
 * Every conformance suite on an engine that runs ops on worker threads of its own: those of
 * {@link EngineConformance} and the {@link ThreadedConformance} rules (overlap, exclusion, thread
 * hygiene), which an engine that runs each op on its pushing thread cannot show.
 */
public abstract class ThreadedEngineConformance extends EngineConformance {
    @Nested
    class Threaded extends ThreadedConformance { }
}
