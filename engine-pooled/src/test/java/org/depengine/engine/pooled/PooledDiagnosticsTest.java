package org.depengine.engine.pooled;

import org.depengine.testkit.DiagnosticsConformance;

/** The shared {@link DiagnosticsConformance} suite on the pooled engine. */
class PooledDiagnosticsTest extends DiagnosticsConformance {
    @Override
    protected String engineName() {
        return "pooled";
    }
}
