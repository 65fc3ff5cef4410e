package org.depengine.kvstore;

import java.io.Serializable;
import java.nio.FloatBuffer;

/**
 * The step a store applies to a key's stored value with the sum of a push (of a round, in
 * {@code dist_sync}): the optimizer in MXNet's {@code set_optimizer}. It runs on the host for
 * {@code local}; with {@code dist_sync}'s default ({@code updateOn=worker}, MXNet's
 * {@code update_on_kvstore=False}) on every worker, on each round's sum, so it must compute the same
 * floats on every worker (the built-ins do); where the key lives (a Hazelcast member) with
 * {@code dist_async} or {@code updateOn=server}, which is why it is {@link Serializable}. Write it as a
 * named class whose fields are serializable (not a lambda capturing unknown state); the built-ins (package
 * {@code org.depengine.kvstore.optimizers}) are such classes. A store that ships updaters deserializes
 * only the built-ins and the classes the user registers with it ({@code kvstore-hazelcast}:
 * {@code depengine.kvstore.updaterClasses}), since deserializing a class a peer names runs its code.
 *
 * <h2>State</h2>
 * An updater may keep per-element state (momentum, Adam's moments): {@link #stateFloats()} says how many
 * floats per element, and the store calls {@link #update(String, FloatBuffer, FloatBuffer, FloatBuffer, long)}
 * with that state. The store keeps it where the updater runs (on every worker, or where the key lives, per
 * key and per chunk of a split key), and changes it in the same step as the value: a backup copy and a
 * {@link KVStore#checkpoint checkpoint} always hold a value and the state it was computed with. Fields of
 * the updater object itself are never state: a store may run a copy of it.
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

    /**
     * The floats of state this updater keeps per element of a key: 0 (the default) for a stateless one,
     * 1 for {@link #sgd(float, float, float, float) momentum SGD}, 2 for {@link #adam Adam}.
     */
    default int stateFloats() {
        return 0;
    }

    /**
     * What a store calls: updates {@code stored} (and {@code state}) in place from {@code merged}. The
     * default ignores the state and calls {@link #update(String, FloatBuffer, FloatBuffer)}.
     *
     * @param key the key being updated
     * @param merged the sum of the push, as for {@link #update(String, FloatBuffer, FloatBuffer)}
     * @param stored the key's value (or a chunk's slice of it), updated in place
     * @param state {@link #stateFloats()} arrays of {@code stored}'s length, one after the other (slot
     *     {@code s} of element {@code i} at {@code s · length + i}), all zero before the first update
     * @param step this key's update count, this one included (1 at the first update); the same for every
     *     chunk of a split key
     */
    default void update(String key, FloatBuffer merged, FloatBuffer stored, FloatBuffer state, long step) {
        update(key, merged, stored);
    }

    /** {@code stored = merged}: the default, MXNet's behaviour with no updater. */
    static Updater assign() {
        return org.depengine.kvstore.optimizers.Assign.INSTANCE;
    }

    /** {@code stored += merged}: accumulate every push. */
    static Updater sum() {
        return org.depengine.kvstore.optimizers.Sum.INSTANCE;
    }

    /**
     * {@code stored -= learningRate · merged} (plain SGD on a summed gradient), float by float.
     *
     * @throws IllegalArgumentException if {@code learningRate} is not finite
     */
    static Updater sgd(float learningRate) {
        return new org.depengine.kvstore.optimizers.Sgd(learningRate);
    }

    /**
     * MXNet's {@code sgd} with momentum: per element, {@code g = rescaleGrad · merged + weightDecay · w;
     * mom = momentum · mom − learningRate · g; w += mom}. One float of state (the momentum), zero at first.
     *
     * @throws IllegalArgumentException if a number is not finite, or {@code momentum} is outside [0, 1)
     */
    static Updater sgd(float learningRate, float momentum, float weightDecay, float rescaleGrad) {
        return new org.depengine.kvstore.optimizers.MomentumSgd(learningRate, momentum, weightDecay, rescaleGrad);
    }

    /**
     * MXNet's {@code adam}: per element, {@code g = rescaleGrad · merged + weightDecay · w;
     * m = beta1 · m + (1 − beta1) · g; v = beta2 · v + (1 − beta2) · g²;
     * w −= lr_t · m / (√v + epsilon)} with the bias correction
     * {@code lr_t = learningRate · √(1 − beta2^t) / (1 − beta1^t)} at update {@code t} (from 1) of the
     * key. Two floats of state ({@code m}, then {@code v}), zero at first.
     *
     * @throws IllegalArgumentException if a number is not finite, a beta is outside [0, 1), or
     *     {@code epsilon} is not positive
     */
    static Updater adam(float learningRate, float beta1, float beta2, float epsilon, float weightDecay,
                        float rescaleGrad) {
        return new org.depengine.kvstore.optimizers.Adam(learningRate, beta1, beta2, epsilon, weightDecay, rescaleGrad);
    }

    /** {@link #adam(float, float, float, float, float, float)} with MXNet's defaults: 0.9, 0.999, 1e-8, no decay, rescale 1. */
    static Updater adam(float learningRate) {
        return adam(learningRate, 0.9f, 0.999f, 1e-8f, 0f, 1f);
    }
}
