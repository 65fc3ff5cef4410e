package org.depengine.kvstore.hazelcast.client;

import java.util.Map;
import java.util.function.Function;
import org.depengine.kvstore.Checkpoint;
import org.depengine.kvstore.KVStoreException;
import org.depengine.kvstore.hazelcast.hz.Reply;
import org.depengine.kvstore.spi.Rounds;

/** A checkpoint's entry of a key from its chunks' answers (value, updater state, update count). */
final class Snapshots {
    private Snapshots() {
    }

    /**
     * Joins the chunks' answers (by offset) into one entry: the value, and the state slot after slot over
     * the whole key.
     *
     * @param sameRound whether every chunk must answer at one round ({@code dist_sync})
     * @throws KVStoreException (from {@code failure}) if the chunks are at different rounds or steps
     */
    static Checkpoint.Entry join(String key, int len, Map<Integer, Reply> replies, boolean sameRound,
                                 Function<String, KVStoreException> failure) {
        float[] value = new float[len];
        Reply first = replies.values().iterator().next();
        int stateFloats = first.state().length / first.value().length;
        float[] state = new float[stateFloats * len];
        for (Map.Entry<Integer, Reply> e : replies.entrySet()) {
            int off = e.getKey();
            Reply r = e.getValue();
            int n = r.value().length;
            if (r.steps() != first.steps() || r.state().length != stateFloats * n
                    || (sameRound && r.round() != first.round())) {
                throw failure.apply("its chunks are at different rounds or steps (" + Rounds.text(first.round())
                        + " and " + Rounds.text(r.round()) + "): a worker pushed between the barriers around the "
                        + "checkpoint");
            }
            System.arraycopy(r.value(), 0, value, off, n);
            for (int j = 0; j < stateFloats; j++) {
                System.arraycopy(r.state(), j * n, state, j * len + off, n);
            }
        }
        return new Checkpoint.Entry(key, value, stateFloats, state, first.steps());
    }
}
