package org.depengine.core.tracker;

/**
 * Where an engine sends an op that becomes ready on a thread that does not run it (a worker group's
 * queue, or the op's blocked pusher). Chosen by the engine before registration and fixed for the op's
 * run ({@link OpBlock#setRoute}); the tracker only carries it.
 */
public interface OpRoute {
    /**
     * Takes a ready op. Called by the engine on the thread that made the op ready, with no tracker
     * lock held; must not throw for a valid op.
     */
    void submit(OpBlock op);
}
