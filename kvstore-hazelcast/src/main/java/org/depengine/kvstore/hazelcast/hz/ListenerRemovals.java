package org.depengine.kvstore.hazelcast.hz;

import org.slf4j.Logger;

/**
 * Removes a store's Hazelcast listeners at close, each on its own: a removal that fails (the instance is
 * gone, the map was destroyed by the job's last closer) is logged and does not keep the ones after it
 * registered, which would leave a closed store's listener on a member that lives on.
 */
public final class ListenerRemovals {
    private ListenerRemovals() {
    }

    /** Runs every removal, logging at debug, naming {@code rank}, those that fail. */
    public static void removeEach(Logger log, int rank, Runnable... removals) {
        for (Runnable r : removals) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.debug("rank {}: removing a listener at close: {}", rank, e.toString()); // the instance may be gone already
            }
        }
    }
}
