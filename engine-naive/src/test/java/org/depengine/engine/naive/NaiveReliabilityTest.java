package org.depengine.engine.naive;

import org.depengine.testkit.ReliabilityConformance;

/** The shared {@link ReliabilityConformance} suite on the naive engine. */
class NaiveReliabilityTest extends ReliabilityConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
