package org.depengine.engine.perdevice;

import org.depengine.testkit.DiagnosticsConformance;

/** The shared {@link DiagnosticsConformance} suite on the perdevice engine. */
class PerDeviceDiagnosticsTest extends DiagnosticsConformance {
    @Override
    protected String engineName() {
        return "perdevice";
    }
}
