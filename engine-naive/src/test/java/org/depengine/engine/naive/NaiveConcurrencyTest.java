package org.depengine.engine.naive;

import org.depengine.testkit.ConcurrencyConformance;

/** The shared {@link ConcurrencyConformance} suite on the naive engine. */
class NaiveConcurrencyTest extends ConcurrencyConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
