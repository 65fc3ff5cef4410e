package org.depengine.engine.naive;

import org.depengine.testkit.CompletionConformance;

/** The shared {@link CompletionConformance} suite on the naive engine. */
class NaiveCompletionTest extends CompletionConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
