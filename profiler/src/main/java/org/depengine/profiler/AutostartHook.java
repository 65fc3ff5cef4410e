package org.depengine.profiler;

import org.depengine.api.Engine;
import org.depengine.api.spi.EngineCreationHook;

/**
 * Attaches a profiler to every engine created while {@code -Ddepengine.profiler.autostart=true} is
 * set (see {@link Profiler#autostart(Engine)}). Found with {@link java.util.ServiceLoader}: putting the
 * profiler on the path is all it takes. An invalid profiler setting is an
 * {@link IllegalArgumentException} naming it, which fails the engine's creation (rather than running
 * without the profiler that was asked for).
 */
public final class AutostartHook implements EngineCreationHook {
    /** For {@link java.util.ServiceLoader}. */
    public AutostartHook() {
    }

    @Override
    public void engineCreated(Engine engine) {
        Profiler.autostart(engine);
    }
}
