package org.depengine.kvstore.hazelcast.protocol;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/**
 * The updater's step where a key's value lives: the value, the updater's state for it
 * ({@link Updater#stateFloats()} per element, empty before the first stateful update) and its update
 * count, changed together by {@link #apply}, so a copy or a checkpoint always holds a value and the state
 * it was computed with. An updater runs on one part of a key (a chunk) as on a whole key: updaters are
 * element-wise, and every part counts the same steps. Not thread-safe.
 */
public final class UpdatedValue {
    private float[] value;
    private float[] state;
    private long steps;

    /** A value with no state yet (a key's init), or a resumed one's state and update count. */
    public UpdatedValue(float[] value, float[] state, long steps) {
        this.value = value;
        this.state = state;
        this.steps = steps;
    }

    /** The value (the live array: changed in place by {@link #apply}). */
    public float[] value() {
        return value;
    }

    /** The updater's state (the live array). */
    public float[] state() {
        return state;
    }

    /** The updates so far. */
    public long steps() {
        return steps;
    }

    /**
     * Why {@code u} cannot update this value: it holds state of another size (resumed from a checkpoint
     * written with another updater); null if it can.
     */
    public String stateMismatch(Updater u, String key) {
        int floats = (u == null ? Updater.assign() : u).stateFloats();
        if (state.length == 0 || state.length == floats * value.length) {
            return null;
        }
        return "key '" + key + "' holds " + state.length / value.length + " floats of optimizer state per "
                + "element (from the checkpoint it resumed from), updater " + u + " keeps " + floats
                + ": set the updater the checkpoint was written with";
    }

    /** One update: {@code value} from the round's {@code sum} (read only) with {@code u} (null: assign). */
    public void apply(Updater u, String key, float[] sum) {
        Updater up = u == null ? Updater.assign() : u;
        if (state.length == 0) {
            state = new float[up.stateFloats() * value.length];
        }
        up.update(key, FloatBuffer.wrap(sum).asReadOnlyBuffer(), FloatBuffer.wrap(value), FloatBuffer.wrap(state),
                ++steps);
    }

    /** A copy sharing nothing that {@link #apply} changes. */
    public UpdatedValue copy() {
        return new UpdatedValue(value.clone(), state.clone(), steps);
    }
}
