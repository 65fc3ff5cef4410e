package org.depengine.engine.pooled;

import org.depengine.api.Engine;
import org.depengine.api.spi.EngineConfig;
import org.depengine.api.spi.EngineProvider;

/** Provides the {@value #NAME} engine to {@link java.util.ServiceLoader}. */
public final class PooledEngineProvider implements EngineProvider {
    /** The engine's name. */
    public static final String NAME = "pooled";

    /** For {@link java.util.ServiceLoader}. */
    public PooledEngineProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Engine create(EngineConfig config) {
        return new PooledEngine(config);
    }
}
