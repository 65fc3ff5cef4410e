package org.depengine.kvstore.hazelcast.state;

import java.io.Serializable;

/**
 * The update a key's owner applies once a round's contributions are merged (or, in {@code dist_async},
 * to each push): it runs on the member that owns the key, and on its backup, so it must be
 * deterministic and serializable (Java serialization: it travels with every push).
 *
 * <p>It is applied chunk by chunk when a key is split across members, so it must be element-wise.
 */
@FunctionalInterface
public interface ServerUpdater extends Serializable {
    /**
     * Updates {@code stored} (the key's chunk, in place) with {@code merged}.
     *
     * @param key the user's key (not the chunk's)
     * @param offset where this chunk starts in the key's array
     * @param merged the contributions of the round, summed in rank order; never modified by callers afterwards
     * @param stored the stored value, to update in place
     */
    void update(String key, int offset, float[] merged, float[] stored);

    /** MXNet's default on a server: the stored value becomes the merged one. */
    ServerUpdater ASSIGN = Assign.INSTANCE;

    /** {@link #ASSIGN}'s type: an enum, so it serializes as a name. */
    enum Assign implements ServerUpdater {
        INSTANCE;

        @Override
        public void update(String key, int offset, float[] merged, float[] stored) {
            System.arraycopy(merged, 0, stored, 0, stored.length);
        }
    }
}
