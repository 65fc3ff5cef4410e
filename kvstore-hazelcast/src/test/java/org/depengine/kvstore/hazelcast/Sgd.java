package org.depengine.kvstore.hazelcast;

import org.depengine.kvstore.hazelcast.state.ServerUpdater;

/** {@code stored -= lr · merged}: the updater the tests run on the keys' owners. */
record Sgd(float lr) implements ServerUpdater {
    @Override
    public void update(String key, int offset, float[] merged, float[] stored) {
        for (int i = 0; i < stored.length; i++) {
            stored[i] -= lr * merged[i];
        }
    }
}
