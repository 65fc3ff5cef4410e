package org.depengine.api;

/**
 * The body of an asynchronous op: it starts work and returns; the op is complete only when
 * {@link CallbackOnComplete#complete()} or {@link CallbackOnComplete#fail(Throwable)} is called,
 * from any thread, exactly once. Throwing from {@link #run} before completing fails the op.
 */
@FunctionalInterface
public interface AsyncFn {
    /**
     * Starts the op.
     *
     * @param ctx where the op runs: its device context and stream
     * @param onComplete to be called exactly once when the work is done
     * @throws Exception to fail the op (only if {@code onComplete} has not been called yet)
     */
    void run(RunContext ctx, CallbackOnComplete onComplete) throws Exception;
}
