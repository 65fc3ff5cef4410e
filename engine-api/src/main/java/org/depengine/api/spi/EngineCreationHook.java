package org.depengine.api.spi;

import org.depengine.api.Engine;

/**
 * Told of every engine made by {@link Engine#create} and {@link Engine#get()}, e.g. to attach a
 * profiler when a system property asks for one. Found with {@link java.util.ServiceLoader}; each hook
 * is called in its own try/catch, and one that throws is logged and ignored: it never prevents the
 * engine's creation.
 */
public interface EngineCreationHook {
    /** Called on the creating thread right after {@code engine} was made, before it is returned. */
    void engineCreated(Engine engine);
}
