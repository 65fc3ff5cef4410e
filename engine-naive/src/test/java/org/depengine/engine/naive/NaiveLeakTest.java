package org.depengine.engine.naive;

import org.depengine.testkit.LeakConformance;

/** The shared {@link LeakConformance} suite on the naive engine. */
class NaiveLeakTest extends LeakConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
