package org.depengine.testkit;

import org.junit.jupiter.api.Nested;

/**
 * Every conformance suite, on one engine: an engine module extends this once, naming its
 * {@link #setup()}, and JUnit runs each suite as a {@link Nested} class of that one test class (the
 * Surefire report lists the tests under {@code NaiveConformanceTest}, each with its suite's class).
 * Engines with worker threads extend {@link ThreadedEngineConformance}, which adds the
 * {@link ThreadedConformance} rules.
 *
 * <p>A new suite is one line here: a nested class extending it, with no body. Its tests find the
 * engine through {@link EngineUnderTest}, which hands each nested suite this class's setup before the
 * suite creates its engine.
 */
public abstract class EngineConformance implements EngineUnderTest {
    @Override
    public abstract EngineSetup setup();

    // One line a suite; the class name is the suite's name in the test report.

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
}
