/**
 * The conformance suites every engine must pass, the serial oracle and the workload generators they use.
 *
 * <h2>Running the suites on an engine</h2>
 * An engine module has one test class for all of them. It extends {@link org.depengine.testkit.EngineConformance}
 * and names the engine's base setup once (CPU ops, no listener):
 *
 * <pre>{@code
 * class PooledConformanceTest extends EngineConformance {
 *     @Override
 *     public EngineSetup setup() {
 *         return EngineSetup.of("pooled").withSettings(Map.of("depengine.pooled.workers", "2"))
 *                 .withSingleWorkerSettings(Map.of("depengine.pooled.workers", "1"));
 *     }
 * }
 * }</pre>
 *
 * {@code EngineConformance} crosses that setup with every
 * {@link org.depengine.testkit.EngineSetup.Configuration} that applies to the engine: CPU ops or ops on the
 * asynchronous stand-in device ({@link org.depengine.testkit.AsyncStandInDevices}, with device-side waits),
 * release at launch on and off ({@code depengine.device.releaseAtLaunch}, for an engine that reads it:
 * {@link org.depengine.testkit.EngineSetup#withReleaseAtLaunchSetting(int)}), and a checking listener attached
 * or not. JUnit runs each suite as a {@code @Nested} class of a configuration class; Maven's log names a
 * failing test by engine module and test ({@code PooledConformanceTest.writesToOneVariableRunInPushOrder}), and
 * the failure message starts with the setup in words ({@link org.depengine.testkit.EngineSetup#label()}), e.g.
 * {@code pooled, ops on [testkit_async:0, cpu:0], async device ops released when done (the engine has no release
 * at launch), listener attached: ...}. The short form
 * (the default) runs a deterministic sample of the product, the long form ({@code -Ddepengine.test.long=true})
 * all of it. After each test {@link org.depengine.testkit.EngineTestBase} checks that nothing is pending, that
 * the diagnostics show no op or waiter, that no engine thread outlived the close and that the listener protocol
 * held. Every engine gets a new suite at once: add one line to {@code EngineConformance.Configured}, a
 * body-less nested class extending the suite. A suite of its own for one engine, or one run with other
 * contexts (a device module's OpenCL ordering run), can still be a plain subclass of the suite that overrides
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
