package org.depengine.engine.naive;

import org.depengine.testkit.MisbehavingDeviceConformance;

/** The shared {@link MisbehavingDeviceConformance} suite on the naive engine. */
class NaiveMisbehavingDeviceTest extends MisbehavingDeviceConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
