package org.depengine.engine.naive;

import org.depengine.testkit.DiagnosticsConformance;

/** The shared {@link DiagnosticsConformance} suite on the naive engine. */
class NaiveDiagnosticsTest extends DiagnosticsConformance {
    @Override
    protected String engineName() {
        return "naive";
    }
}
