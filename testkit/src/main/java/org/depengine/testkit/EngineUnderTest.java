package org.depengine.testkit;

import java.util.List;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * A test class that names the engine its {@code @Nested} suites run on. {@link EngineConformance}
 * is one (every suite); a module that runs only some suites, or the same suites on two setups,
 * implements this on its own class and nests the suites it wants in it:
 *
 * <pre>{@code
 * class OpenClConformanceTest implements EngineUnderTest {
 *     public EngineSetup setup() {
 *         return EngineSetup.of("perdevice").withContexts(List.of(Context.of("opencl", 0), Context.cpu()));
 *     }
 *
 *     @Nested
 *     class Ordering extends OrderingConformance { }
 * }
 * }</pre>
 *
 * Before each test, the innermost enclosing instance that implements this hands its setup to the suite.
 */
@ExtendWith(EngineUnderTest.UseEnclosingSetup.class)
public interface EngineUnderTest {
    /** The engine under test and its settings; called once per test, so return a constant. */
    EngineSetup setup();

    /**
     * Gives each suite nested in an {@link EngineUnderTest} the setup of its innermost such enclosing
     * instance, before the suite's {@code @BeforeEach} methods create the engine; and names that setup
     * ({@link EngineSetup#label()}) in the failure of a test that fails, so that a failure of one point
     * of the cross product says which.
     */
    final class UseEnclosingSetup implements BeforeEachCallback, TestExecutionExceptionHandler {
        @Override
        public void handleTestExecutionException(ExtensionContext context, Throwable thrown) throws Throwable {
            if (thrown instanceof TestAbortedException
                    || !(context.getRequiredTestInstance() instanceof EngineTestBase suite) || !suite.hasSetup()) {
                throw thrown;
            }
            AssertionError named = new AssertionError(suite.setup().label() + ": " + thrown, thrown);
            named.setStackTrace(new StackTraceElement[0]); // the cause's trace is the one to read
            throw named;
        }

        @Override
        public void beforeEach(ExtensionContext context) {
            List<Object> enclosing = context.getRequiredTestInstances().getEnclosingInstances();
            EngineUnderTest owner = null;
            for (Object o : enclosing) { // outermost first: the last match is the innermost
                if (o instanceof EngineUnderTest u) {
                    owner = u;
                }
            }
            if (owner != null && context.getRequiredTestInstance() instanceof EngineTestBase suite) {
                suite.useSetup(owner.setup());
            }
        }
    }
}
