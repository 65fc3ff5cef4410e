package org.depengine.testkit;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Every conformance suite, on one engine: an engine module extends this once, naming its
 * {@link #setup()}, and JUnit runs each suite as a {@link Nested} class of that one test class (the
 * Surefire report names them {@code NaiveConformanceTest$Ordering} and so on). Engines with worker
 * threads extend {@link ThreadedEngineConformance}, which adds the {@link ThreadedConformance} rules.
 *
 * <p>A new suite is one line here: a nested class extending it, with no body. Its tests find the
 * engine through the {@link UseEnclosingSetup} extension, which hands each nested suite the setup of
 * the engine module's class before the suite creates its engine.
 */
@ExtendWith(EngineConformance.UseEnclosingSetup.class)
public abstract class EngineConformance {
    /** The engine under test and its settings; called once per test, so return a constant. */
    protected abstract EngineSetup setup();

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

    /**
     * Gives each suite nested in an {@link EngineConformance} the setup of its enclosing instance,
     * before the suite's {@code @BeforeEach} methods create the engine.
     */
    static final class UseEnclosingSetup implements BeforeEachCallback {
        @Override
        public void beforeEach(ExtensionContext context) {
            List<Object> instances = context.getRequiredTestInstances().getAllInstances();
            EngineConformance outer = null;
            for (Object o : instances) {
                if (o instanceof EngineConformance c) {
                    outer = c;
                }
            }
            Object test = context.getRequiredTestInstance();
            if (outer != null && test instanceof EngineTestBase suite) {
                suite.useSetup(outer.setup());
            }
        }
    }
}
