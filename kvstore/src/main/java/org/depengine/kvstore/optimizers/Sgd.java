package org.depengine.kvstore.optimizers;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/** {@code stored -= learningRate · merged}. */
public final class Sgd implements Updater {
    private static final long serialVersionUID = 1L;
    private final float learningRate;

    /** As {@link Updater} makes it (the arguments checked there: see its factory method). */
    public Sgd(float learningRate) {
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
