package org.depengine.kvstore.optimizers;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/** Momentum SGD: {@link Updater#sgd(float, float, float, float)}. */
public final class MomentumSgd extends StatefulUpdater {
    private static final long serialVersionUID = 1L;
    private final float learningRate;
    private final float momentum;
    private final float weightDecay;
    private final float rescaleGrad;

    /** As {@link Updater} makes it (the arguments checked there: see its factory method). */
    public MomentumSgd(float learningRate, float momentum, float weightDecay, float rescaleGrad) {
        this.learningRate = check("SGD learning rate", learningRate, -Float.MAX_VALUE, Float.MAX_VALUE);
        this.momentum = check("SGD momentum", momentum, 0, 1);
        this.weightDecay = check("SGD weight decay", weightDecay, -Float.MAX_VALUE, Float.MAX_VALUE);
        this.rescaleGrad = check("SGD gradient rescale", rescaleGrad, -Float.MAX_VALUE, Float.MAX_VALUE);
    }

    @Override
    public int stateFloats() {
        return 1;
    }

    @Override
    public void update(String key, FloatBuffer merged, FloatBuffer stored, FloatBuffer state, long step) {
        for (int i = 0, n = stored.limit(); i < n; i++) {
            float w = stored.get(i);
            float g = rescaleGrad * merged.get(i) + weightDecay * w;
            float mom = momentum * state.get(i) - learningRate * g;
            state.put(i, mom);
            stored.put(i, w + mom);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MomentumSgd s && Float.compare(s.learningRate, learningRate) == 0
                && Float.compare(s.momentum, momentum) == 0 && Float.compare(s.weightDecay, weightDecay) == 0
                && Float.compare(s.rescaleGrad, rescaleGrad) == 0;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(learningRate, momentum, weightDecay, rescaleGrad);
    }

    @Override
    public String toString() {
        return "sgd(learningRate=" + learningRate + ", momentum=" + momentum + ", weightDecay=" + weightDecay
                + ", rescaleGrad=" + rescaleGrad + ")";
    }
}
