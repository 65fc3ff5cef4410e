package org.depengine.testkit;

import java.nio.FloatBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.depengine.kvstore.Updater;

/**
 * The serial model of a store trained with a stateful {@link Updater}: per key, the weights, the
 * updater's state and the step count, updated round by round with the sum of every worker's gradient
 * (summed in rank order, as the stores sum a round). The gradients are a fixed function of the seed,
 * the round, the rank and the key, so a test pushes the same ones to a store and to this model, and a
 * resumed run can replay the rounds before its checkpoint. Not thread-safe.
 */
public final class SerialTraining {
    private final Updater updater;
    private final int workers;
    private final long seed;
    private final Map<String, float[]> weights = new LinkedHashMap<>();
    private final Map<String, float[]> state = new LinkedHashMap<>();
    private final Map<String, Long> steps = new LinkedHashMap<>();

    /**
     * @param updater the updater both the store and the model run
     * @param lengths each key's length, in the order keys are initialised
     * @param workers the workers pushing every round
     * @param seed the gradients' seed
     */
    public SerialTraining(Updater updater, Map<String, Integer> lengths, int workers, long seed) {
        this.updater = updater;
        this.workers = workers;
        this.seed = seed;
        lengths.forEach((key, n) -> {
            weights.put(key, initial(key, n));
            state.put(key, new float[updater.stateFloats() * n]);
            steps.put(key, 0L);
        });
    }

    /** The keys, in init order. */
    public Iterable<String> keys() {
        return weights.keySet();
    }

    /** The initial value of {@code key} (the same for every model of these keys). */
    public float[] initial(String key, int n) {
        Random rnd = new Random(seed ^ key.hashCode());
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextFloat() * 2 - 1;
        }
        return a;
    }

    /** Worker {@code rank}'s gradient of {@code key} in round {@code round} (from 1). */
    public float[] gradient(int round, int rank, String key) {
        Random rnd = new Random(seed * 1_000_003L + round * 7919L + rank * 131L + key.hashCode());
        float[] g = new float[weights.get(key).length];
        for (int i = 0; i < g.length; i++) {
            g[i] = rnd.nextFloat() * 2 - 1;
        }
        return g;
    }

    /** Applies round {@code round}: every key gets the rank-ordered sum of the workers' gradients. */
    public void round(int round) {
        for (String key : weights.keySet()) {
            float[] merged = gradient(round, 0, key);
            for (int r = 1; r < workers; r++) {
                float[] g = gradient(round, r, key);
                for (int i = 0; i < merged.length; i++) {
                    merged[i] += g[i];
                }
            }
            long step = steps.merge(key, 1L, Long::sum);
            updater.update(key, FloatBuffer.wrap(merged).asReadOnlyBuffer(), FloatBuffer.wrap(weights.get(key)),
                    FloatBuffer.wrap(state.get(key)), step);
        }
    }

    /** The weights of {@code key} now (a copy). */
    public float[] weights(String key) {
        return weights.get(key).clone();
    }

    /** The updater's state of {@code key} now (a copy). */
    public float[] state(String key) {
        return state.get(key).clone();
    }

    /** The updates of {@code key} so far. */
    public long steps(String key) {
        return steps.get(key);
    }
}
