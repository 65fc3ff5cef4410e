package org.depengine.api.spi;

import org.depengine.api.Engine;

/**
 * Told of every engine made by {@link Engine#create} and {@link Engine#get()}, e.g. to attach a
 * profiler when a system property asks for one. Found with {@link java.util.ServiceLoader}; each hook
 * is called in its own try/catch. A hook that throws {@link IllegalArgumentException} (an invalid
 * setting, named in the message) fails the creation: the engine is closed and the exception is thrown
 * to the caller of {@code Engine.create}/{@code Engine.get}. Anything else a hook throws is logged and
 * ignored.
 */
public interface EngineCreationHook {
    /**
     * Called on the creating thread right after {@code engine} was made, before it is returned.
     *
     * @param engine the engine, fully built
     */
    void engineCreated(Engine engine);
}
