package org.depengine.engine.pooled;

import org.depengine.testkit.CompletionConformance;

/** The shared {@link CompletionConformance} suite on the pooled engine. */
class PooledCompletionTest extends CompletionConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }
}
