package org.depengine.api.device;

/**
 * A completion marker recorded on a {@link Stream}: done once every piece of work enqueued on the
 * stream before it was recorded is done. Thread-safe.
 *
 * <p>There is no {@code release()}: an event needs none. A device recycles the native handle behind an
 * event as soon as it sees the marked work done (the CUDA and OpenCL devices pool their handles), and the
 * small wrapper then stays done on its own, so any holder may still ask it or wait on it at no cost. A
 * pooled wrapper with an explicit release would make every holder (the engine's fences, other streams'
 * waits, user code) agree on a last use, and a wrapper released too early and reused would make a late
 * waiter wait for unrelated work: a silent ordering bug traded for one small allocation per record.
 */
public interface Event {
    /**
     * Whether the marked work is done. Never blocks.
     *
     * @return whether the marked work is done
     */
    boolean isDone();

    /**
     * Blocks the calling thread until the marked work is done.
     *
     * @throws org.depengine.api.EngineException if the device reported an error, or the wait was interrupted
     */
    void await();
}
