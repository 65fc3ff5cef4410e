package org.depengine.engine.naive;

import org.depengine.testkit.FailureConformance;

/** The shared {@link FailureConformance} suite on the naive engine. */
class NaiveFailureTest extends FailureConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
