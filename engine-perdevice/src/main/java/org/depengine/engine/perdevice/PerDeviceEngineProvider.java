package org.depengine.engine.perdevice;

import org.depengine.api.Engine;
import org.depengine.api.spi.EngineConfig;
import org.depengine.api.spi.EngineProvider;

/** Provides the {@value #NAME} engine to {@link java.util.ServiceLoader}. */
public final class PerDeviceEngineProvider implements EngineProvider {
    /** The engine's name. */
    public static final String NAME = "perdevice";

    /** For {@link java.util.ServiceLoader}. */
    public PerDeviceEngineProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Engine create(EngineConfig config) {
        return new PerDeviceEngine(config);
    }
}
