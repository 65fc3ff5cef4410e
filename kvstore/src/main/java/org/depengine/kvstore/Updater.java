package org.depengine.kvstore;

import java.io.Serializable;
import java.nio.FloatBuffer;

/**
 * The step a store applies to a key's stored value with the sum of a push (of a round, in
 * {@code dist_sync}): the optimizer in MXNet's {@code set_optimizer}. It runs where the key lives: on the
 * host for {@code local}, on the member owning the key for a distributed store, which is why it is
 * {@link Serializable}. Write it as a named class whose fields are serializable (not a lambda capturing
 * unknown state); the built-ins below are such classes. A distributed store deserializes only the
 * built-ins and the classes the user registers with it ({@code kvstore-hazelcast}:
 * {@code depengine.kvstore.updaterClasses}), since deserializing a class a peer names runs its code.
 *
 * <p>Thread-safety: it may be called concurrently for different keys, never concurrently for one key.
 */
public interface Updater extends Serializable {

    /**
     * Updates {@code stored} in place from {@code merged}. Both buffers hold exactly the key's length
     * (position 0, limit = length); use absolute {@code get(i)} / {@code put(i, v)}. {@code merged} must
     * not be modified, and neither buffer may be kept after the call.
     *
     * @param key the key being updated
     * @param merged the sum of the push (over the devices, and over the workers of a sync round)
     * @param stored the key's value, updated in place
     */
    void update(String key, FloatBuffer merged, FloatBuffer stored);

    /** {@code stored = merged}: the default, MXNet's behaviour with no updater. */
    static Updater assign() {
        return Assign.INSTANCE;
    }

    /** {@code stored += merged}: accumulate every push. */
    static Updater sum() {
        return Sum.INSTANCE;
    }

    /**
     * {@code stored -= learningRate · merged} (plain SGD on a summed gradient), float by float.
     *
     * @throws IllegalArgumentException if {@code learningRate} is not finite
     */
    static Updater sgd(float learningRate) {
        return new Sgd(learningRate);
    }

    /** {@code stored = merged}. */
    final class Assign implements Updater {
        private static final long serialVersionUID = 1L;
        static final Assign INSTANCE = new Assign();

        private Assign() {
        }

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            for (int i = 0, n = stored.limit(); i < n; i++) {
                stored.put(i, merged.get(i));
            }
        }

        private Object readResolve() {
            return INSTANCE;
        }

        @Override
        public String toString() {
            return "assign";
        }
    }

    /** {@code stored += merged}. */
    final class Sum implements Updater {
        private static final long serialVersionUID = 1L;
        static final Sum INSTANCE = new Sum();

        private Sum() {
        }

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            for (int i = 0, n = stored.limit(); i < n; i++) {
                stored.put(i, stored.get(i) + merged.get(i));
            }
        }

        private Object readResolve() {
            return INSTANCE;
        }

        @Override
        public String toString() {
            return "sum";
        }
    }

    /** {@code stored -= learningRate · merged}. */
    final class Sgd implements Updater {
        private static final long serialVersionUID = 1L;
        private final float learningRate;

        Sgd(float learningRate) {
            if (!Float.isFinite(learningRate)) {
                throw new IllegalArgumentException("SGD learning rate must be finite, got " + learningRate);
            }
            this.learningRate = learningRate;
        }

        /** The learning rate. */
        public float learningRate() {
            return learningRate;
        }

        @Override
        public void update(String key, FloatBuffer merged, FloatBuffer stored) {
            for (int i = 0, n = stored.limit(); i < n; i++) {
                stored.put(i, stored.get(i) - learningRate * merged.get(i));
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Sgd s && Float.compare(s.learningRate, learningRate) == 0;
        }

        @Override
        public int hashCode() {
            return Float.hashCode(learningRate);
        }

        @Override
        public String toString() {
            return "sgd(learningRate=" + learningRate + ")";
        }
    }
}
