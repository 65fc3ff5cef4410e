package org.depengine.kvstore.optimizers;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/** Adam: {@link Updater#adam(float, float, float, float, float, float)}. */
public final class Adam extends StatefulUpdater {
    private static final long serialVersionUID = 1L;
    private final float learningRate;
    private final float beta1;
    private final float beta2;
    private final float epsilon;
    private final float weightDecay;
    private final float rescaleGrad;

    /** As {@link Updater} makes it (the arguments checked there: see its factory method). */
    public Adam(float learningRate, float beta1, float beta2, float epsilon, float weightDecay, float rescaleGrad) {
        this.learningRate = check("Adam learning rate", learningRate, -Float.MAX_VALUE, Float.MAX_VALUE);
        this.beta1 = check("Adam beta1", beta1, 0, 1);
        this.beta2 = check("Adam beta2", beta2, 0, 1);
        this.epsilon = check("Adam epsilon", epsilon, Float.MIN_VALUE, Float.MAX_VALUE);
        this.weightDecay = check("Adam weight decay", weightDecay, -Float.MAX_VALUE, Float.MAX_VALUE);
        this.rescaleGrad = check("Adam gradient rescale", rescaleGrad, -Float.MAX_VALUE, Float.MAX_VALUE);
    }

    @Override
    public int stateFloats() {
        return 2;
    }

    @Override
    public void update(String key, FloatBuffer merged, FloatBuffer stored, FloatBuffer state, long step) {
        int n = stored.limit();
        // The bias correction in double, once per update; the element-wise work in float, as MXNet's kernel.
        float lr = (float) (learningRate * Math.sqrt(1 - Math.pow(beta2, step)) / (1 - Math.pow(beta1, step)));
        for (int i = 0; i < n; i++) {
            float w = stored.get(i);
            float g = rescaleGrad * merged.get(i) + weightDecay * w;
            float m = beta1 * state.get(i) + (1 - beta1) * g;
            float v = beta2 * state.get(n + i) + (1 - beta2) * g * g;
            state.put(i, m);
            state.put(n + i, v);
            stored.put(i, w - lr * m / ((float) Math.sqrt(v) + epsilon));
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Adam a && Float.compare(a.learningRate, learningRate) == 0
                && Float.compare(a.beta1, beta1) == 0 && Float.compare(a.beta2, beta2) == 0
                && Float.compare(a.epsilon, epsilon) == 0 && Float.compare(a.weightDecay, weightDecay) == 0
                && Float.compare(a.rescaleGrad, rescaleGrad) == 0;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(learningRate, beta1, beta2, epsilon, weightDecay, rescaleGrad);
    }

    @Override
    public String toString() {
        return "adam(learningRate=" + learningRate + ", beta1=" + beta1 + ", beta2=" + beta2 + ", epsilon="
                + epsilon + ", weightDecay=" + weightDecay + ", rescaleGrad=" + rescaleGrad + ")";
    }
}
