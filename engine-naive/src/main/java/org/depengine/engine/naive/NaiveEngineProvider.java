package org.depengine.engine.naive;

import org.depengine.api.Engine;
import org.depengine.api.spi.EngineConfig;
import org.depengine.api.spi.EngineProvider;

/** Provides the {@value #NAME} engine to {@link java.util.ServiceLoader}. */
public final class NaiveEngineProvider implements EngineProvider {
    /** The engine's name. */
    public static final String NAME = "naive";

    /** For {@link java.util.ServiceLoader}. */
    public NaiveEngineProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Engine create(EngineConfig config) {
        return new NaiveEngine(config);
    }
}
