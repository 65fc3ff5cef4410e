package org.depengine.api.spi;

import org.depengine.api.Engine;

/**
 * Makes engines of one name. Found with {@link java.util.ServiceLoader}; the name must be unique
 * among the providers present (two providers of one name are an error naming both).
 *
 * <p>A provider's constructor must be cheap and must not start threads or touch native code: every
 * provider on the path is instantiated to read its name.
 */
public interface EngineProvider {
    /**
     * The engine name users select, e.g. {@code "pooled"}: lower-case, unique.
     *
     * @return the engine name
     */
    String name();

    /**
     * Creates a new engine.
     *
     * @param config the settings to read now; an invalid value is an {@link IllegalArgumentException}
     *     naming the property
     * @return the new engine
     */
    Engine create(EngineConfig config);
}
