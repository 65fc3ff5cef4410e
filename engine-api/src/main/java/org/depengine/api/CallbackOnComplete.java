package org.depengine.api;

/**
 * Completes an asynchronous op. Exactly one of the two methods must be called, exactly once, from any
 * thread; the ops waiting on the op's variables are released by that call. Until it is called the
 * op's variables stay held, so an op that never completes blocks its dependants.
 *
 * <p>Memory consistency effects: actions of the completing thread prior to the call happen-before
 * the start of every op that depends on this one, and the return of every wait that covers it.
 */
public interface CallbackOnComplete {
    /**
     * Marks the op as done.
     *
     * @throws IllegalStateException if the op was already completed or failed
     */
    void complete();

    /**
     * Marks the op as failed with {@code error}; the variables it writes carry the failure.
     *
     * @param error the cause, reported by the next wait on an affected variable
     * @throws NullPointerException if {@code error} is null
     * @throws IllegalStateException if the op was already completed or failed
     */
    void fail(Throwable error);
}
