package org.depengine.api;

/**
 * The body of a synchronous op: it is complete when {@link #run} returns. Throwing (any
 * {@link Throwable}, {@link Error}s included) makes the op fail; the engine records the failure on
 * the variables the op writes and never lets it kill a worker.
 */
@FunctionalInterface
public interface SyncFn {
    /**
     * Runs the op.
     *
     * @param ctx where the op runs: its device context and stream
     * @throws Exception to fail the op
     */
    void run(RunContext ctx) throws Exception;
}
