package org.depengine.examples;

import java.nio.FloatBuffer;
import org.depengine.kvstore.Updater;

/**
 * MultiDeviceTraining's updater, run where the store runs updaters (on every worker by default): plain SGD on the summed gradient for the
 * layers' keys, and assignment for the {@value #METRICS} key (each worker fills its own samples' slots
 * and zeros elsewhere, so the round's sum is every worker's metrics at once), for the epochs done
 * ({@link TrainingCheckpoints#PROGRESS}) and for an elastic job's count of workers ({@link WorkerShares#KEY}).
 */
final class TrainingUpdater implements Updater {
    private static final long serialVersionUID = 1L;
    /** The key of the per-sample metrics of an epoch. */
    static final String METRICS = "metrics";

    private final Updater sgd;

    TrainingUpdater(float learningRate) {
        sgd = Updater.sgd(learningRate);
    }

    @Override
    public void update(String key, FloatBuffer merged, FloatBuffer stored) {
        (METRICS.equals(key) || TrainingCheckpoints.PROGRESS.equals(key) || WorkerShares.KEY.equals(key)
                ? Updater.assign() : sgd).update(key, merged, stored);
    }

    @Override
    public String toString() {
        return "sgd for the layers, assign for " + METRICS + " (" + sgd + ")";
    }
}
