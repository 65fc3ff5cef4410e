package org.depengine.engine.naive;

import org.depengine.testkit.LifecycleConformance;

/** The shared {@link LifecycleConformance} suite on the naive engine. */
class NaiveLifecycleTest extends LifecycleConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
