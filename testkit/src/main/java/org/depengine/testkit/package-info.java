/**
 * The conformance suites every engine must pass, the serial oracle and the workload generators they use.
 *
 * <h2>Running the suites on an engine</h2>
 * An engine module has one test class for all of them. It extends {@link org.depengine.testkit.EngineConformance}
 * (or {@link org.depengine.testkit.ThreadedEngineConformance} when the engine runs ops on threads of its own) and
 * names the engine and its settings once:
 *
 * <pre>{@code
 * class PooledConformanceTest extends ThreadedEngineConformance {
 *     @Override
 *     public EngineSetup setup() {
 *         return EngineSetup.of("pooled").withSettings(Map.of("depengine.pooled.workers", "2"))
 *                 .withSingleWorkerSettings(Map.of("depengine.pooled.workers", "1"));
 *     }
 * }
 * }</pre>
 *
 * JUnit runs each suite as a {@code @Nested} class of it, so the reports name a failing test by engine
 * module, suite and test: {@code PooledConformanceTest$Ordering.writesToOneVariableRunInPushOrder}. Every
 * engine gets a new suite at once: add one line to {@code EngineConformance}, a body-less nested class
 * extending the suite. A suite of its own for one engine, or one run with other contexts (a device
 * module's OpenCL ordering run), can still be a plain subclass of the suite that overrides
 * {@link org.depengine.testkit.EngineTestBase#engineName()} and, as needed, {@code settings()} and
 * {@code contexts()}.
 *
 * <h2>Device back ends</h2>
 * A device module runs {@link org.depengine.testkit.PrimitiveConformance} by extending it and naming its
 * device. It runs the engine suites with ops on its device through an
 * {@link org.depengine.testkit.EngineUnderTest} whose setup lists the device among its contexts: the
 * randomized workloads spread their ops over all of them, and {@link org.depengine.testkit.FailureConformance}
 * pushes every op to the first ({@code device-cuda}'s {@code CudaConformanceTest} lists {@code cuda:0} first).
 */
package org.depengine.testkit;
