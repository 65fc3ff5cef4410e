package org.depengine.api;

import org.depengine.api.device.Stream;

/**
 * What an op is told when it runs: its device context and the stream it must enqueue device work on.
 * A run context is only valid during the op's {@code run} call (and, for an async op, until it
 * completes); engines reuse run contexts between ops.
 */
public interface RunContext {
    /**
     * The device context the op was pushed to.
     *
     * @return the device context the op was pushed to
     */
    Context context();

    /**
     * The stream of the worker running this op: device work enqueued here is ordered after the work
     * of earlier ops on the same stream. For CPU contexts it is a synchronous lane.
     *
     * @return the stream
     */
    Stream stream();
}
