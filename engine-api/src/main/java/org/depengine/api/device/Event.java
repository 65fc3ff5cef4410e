package org.depengine.api.device;

/**
 * A completion marker recorded on a {@link Stream}: done once every piece of work enqueued on the
 * stream before it was recorded is done. Thread-safe.
 */
public interface Event {
    /** Whether the marked work is done. Never blocks. */
    boolean isDone();

    /**
     * Blocks the calling thread until the marked work is done.
     *
     * @throws org.depengine.api.EngineException if the device reported an error, or the wait was interrupted
     */
    void await();
}
