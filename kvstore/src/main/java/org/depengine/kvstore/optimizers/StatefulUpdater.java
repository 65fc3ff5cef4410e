package org.depengine.kvstore.optimizers;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/**
 * The base of updaters that keep state ({@link Updater#stateFloats()} &gt; 0): the stateless
 * {@link #update(String, FloatBuffer, FloatBuffer)} is refused, since stores always pass the state.
 */
public abstract class StatefulUpdater implements Updater {
    private static final long serialVersionUID = 1L;

    /** For subclasses. */
    protected StatefulUpdater() {
    }

    /**
     * Refused: a stateful updater needs its state.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public final void update(String key, FloatBuffer merged, FloatBuffer stored) {
        throw new UnsupportedOperationException(this + " keeps state: call update(key, merged, stored, state, step)");
    }

    @Override
    public abstract int stateFloats();

    @Override
    public abstract void update(String key, FloatBuffer merged, FloatBuffer stored, FloatBuffer state, long step);

    /** @throws IllegalArgumentException naming {@code what} unless {@code v} is finite and in [min, max) */
    protected static float check(String what, float v, float min, float max) {
        if (!Float.isFinite(v) || v < min || v >= max) {
            throw new IllegalArgumentException(what + " must be finite and in [" + min + ", " + max + "), got " + v);
        }
        return v;
    }
}
