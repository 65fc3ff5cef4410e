package org.depengine.engine.naive;

import org.depengine.testkit.FaultInjectionConformance;

/** The shared {@link FaultInjectionConformance} suite on the naive engine. */
class NaiveFaultInjectionTest extends FaultInjectionConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
