package org.depengine.testkit;

import org.depengine.testkit.EngineSetup.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every conformance suite, on one engine, over the cross product of its {@link Configuration}s: an
 * engine module extends this once, naming its base {@link #setup()} (CPU ops, no listener), and JUnit
 * runs each suite as a {@link Nested} class of a nested configuration class of that one test class
 * (a failure's message starts with the configuration in words, {@link EngineSetup#label()}).
 *
 * <p>A configuration that does not {@link EngineSetup#applies apply} to the engine is disabled with
 * the reason, and so is a suite that cannot apply to a setup ({@link ThreadedConformance} on an engine
 * with no threads of its own). The short form (the default) runs a deterministic sample of the rest,
 * the long form ({@code -Ddepengine.test.long=true}) all of it: see {@link CrossedConfigurations}.
 *
 * <p>A new suite is one line in {@link Configured}: a nested class extending it, with no body. Its
 * tests find the engine through {@link EngineUnderTest}, which hands each nested suite the setup of its
 * configuration before the suite creates its engine.
 */
public abstract class EngineConformance implements EngineUnderTest {
    /** The engine's base setup, in {@link Configuration#CPU}; called once per test, so return a constant. */
    @Override
    public abstract EngineSetup setup();

    @Nested
    @InConfiguration(Configuration.CPU)
    @DisplayName("CPU ops")
    class Cpu extends Configured { }

    @Nested
    @InConfiguration(Configuration.CPU_LISTENED)
    @DisplayName("CPU ops, listener attached")
    class CpuListened extends Configured { }

    @Nested
    @InConfiguration(Configuration.ASYNC_DEVICE)
    @DisplayName("async device ops")
    class AsyncDevice extends Configured { }

    @Nested
    @InConfiguration(Configuration.ASYNC_DEVICE_LISTENED)
    @DisplayName("async device ops, listener attached")
    class AsyncDeviceListened extends Configured { }

    @Nested
    @InConfiguration(Configuration.ASYNC_DEVICE_RELEASED_WHEN_DONE)
    @DisplayName("async device ops released when done")
    class AsyncDeviceReleasedWhenDone extends Configured { }

    @Nested
    @InConfiguration(Configuration.ASYNC_DEVICE_RELEASED_WHEN_DONE_LISTENED)
    @DisplayName("async device ops released when done, listener attached")
    class AsyncDeviceReleasedWhenDoneListened extends Configured { }

    /**
     * The suites, in the configuration named by the subclass's {@link InConfiguration}. One line a
     * suite; the class name is the suite's name in the test report.
     */
    @ExtendWith(CrossedConfigurations.class)
    abstract class Configured implements EngineUnderTest {
        @Override
        public EngineSetup setup() {
            return EngineConformance.this.setup().in(CrossedConfigurations.configurationOf(getClass()));
        }

        @Nested
        class Ordering extends OrderingConformance { }

        @Nested
        class Concurrency extends ConcurrencyConformance { }

        @Nested
        class Failure extends FailureConformance { }

        @Nested
        class FaultInjection extends FaultInjectionConformance { }

        @Nested
        class Lifecycle extends LifecycleConformance { }

        @Nested
        class Misuse extends MisuseConformance { }

        @Nested
        class Leak extends LeakConformance { }

        @Nested
        class Diagnostics extends DiagnosticsConformance { }

        @Nested
        class Reliability extends ReliabilityConformance { }

        @Nested
        class MisbehavingDevice extends MisbehavingDeviceConformance { }

        @Nested
        class Completion extends CompletionConformance { }

        @Nested
        class Bulk extends BulkConformance { }

        @Nested
        class BulkMembers extends BulkMembersConformance { }

        @Nested
        class Replay extends ReplayConformance { }

        @Nested
        class ReplayFailures extends ReplayFailuresConformance { }

        @Nested
        class ReplayRefusals extends ReplayRefusalsConformance { }

        @Nested
        class WriteCount extends WriteCountConformance { }

        @Nested
        class Metrics extends MetricsConformance { }

        /** Only where {@link EngineSetup#threaded()}: see {@link CrossedConfigurations}. */
        @Nested
        class Threaded extends ThreadedConformance { }
    }
}
