package org.depengine.engine.naive;

import org.depengine.testkit.MisuseConformance;

/** The shared {@link MisuseConformance} suite on the naive engine. */
class NaiveMisuseTest extends MisuseConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
