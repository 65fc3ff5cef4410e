package org.depengine.engine.perdevice;

import org.depengine.testkit.CompletionConformance;

/** The shared {@link CompletionConformance} suite on the perdevice engine. */
class PerDeviceCompletionTest extends CompletionConformance {
    @Override
    protected String engineName() {
        return "perdevice";
    }
}
