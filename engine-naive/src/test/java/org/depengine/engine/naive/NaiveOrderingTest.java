package org.depengine.engine.naive;

import org.depengine.testkit.OrderingConformance;

/** The shared {@link OrderingConformance} suite on the naive engine. */
class NaiveOrderingTest extends OrderingConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
