package org.depengine.examples.customdevice;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.testkit.EngineSetup;
import org.depengine.testkit.EngineUnderTest;
import org.depengine.testkit.FailureConformance;
import org.depengine.testkit.OrderingConformance;
import org.depengine.testkit.ReplayConformance;
import org.depengine.testkit.ReplayRefusalsConformance;
import org.junit.jupiter.api.Nested;

/**
 * The engines' shared ordering suite with ops spread over the plugin's devices and the CPU: every op
 * on {@code sim:N} is done only when its lane's completion marker has run on the lane's thread, so
 * this checks that asynchronous completion through a third-party device keeps the serial result, for
 * ops pushed one by one and for replayed graphs (the replay suite); and
 * the failure suite with its ops on {@code sim:0}, the first context, as {@code device-cuda}'s
 * {@code CudaConformanceTest} runs it on {@code cuda:0}.
 */
class SimConformanceTest {
    @Nested
    class PerDevice implements EngineUnderTest {
        @Override
        public EngineSetup setup() {
            return EngineSetup.of("perdevice").withContexts(List.of(Context.of("sim", 0), Context.of("sim", 1), Context.cpu()));
        }

        @Nested
        class Ordering extends OrderingConformance { }

        @Nested
        class Failure extends FailureConformance { }

        @Nested
        class Replay extends ReplayConformance { }

        @Nested
        class ReplayRefusals extends ReplayRefusalsConformance { }
    }

    @Nested
    class Pooled implements EngineUnderTest {
        @Override
        public EngineSetup setup() {
            return EngineSetup.of("pooled").withContexts(List.of(Context.of("sim", 0), Context.cpu()));
        }

        @Nested
        class Ordering extends OrderingConformance { }

        @Nested
        class Failure extends FailureConformance { }

        @Nested
        class Replay extends ReplayConformance { }

        @Nested
        class ReplayRefusals extends ReplayRefusalsConformance { }
    }
}
