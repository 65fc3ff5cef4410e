package org.depengine.benchmarks.workload;

import org.depengine.api.device.Stream;

/**
 * What op {@code i} of an op list does when it runs. Every contender calls the same body, so they
 * all do the same work. Implementations must be safe to call from any thread for ops the
 * dependency rules allow to run at the same time.
 */
@FunctionalInterface
public interface OpBody {
    /**
     * Runs op {@code op}.
     *
     * @param stream the stream to enqueue device work on: the engine's for engines, the serial
     *     baseline's own for device workloads, null for CPU workloads run outside an engine
     */
    void run(int op, Stream stream);
}
