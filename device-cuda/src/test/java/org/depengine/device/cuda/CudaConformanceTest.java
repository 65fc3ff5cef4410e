package org.depengine.device.cuda;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.device.Devices;
import org.depengine.testkit.EngineSetup;
import org.depengine.testkit.EngineUnderTest;
import org.depengine.testkit.FailureConformance;
import org.depengine.testkit.OrderingConformance;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The shared ordering and failure suites with ops on {@code cuda:0} (mixed with CPU ops), through the
 * {@code perdevice} engine (device workers owning CUDA streams) and the {@code pooled} engine (its
 * compute and copy queues): each device op is done only when the host function the stream policy
 * enqueued after it has run, so these check that asynchronous CUDA completion keeps the serial result
 * and the failure rules. On a real GPU only; every test is skipped, with the probe's reason, elsewhere.
 */
class CudaConformanceTest {
    private static final List<Context> CONTEXTS = List.of(Context.of("cuda", 0), Context.cpu());

    @BeforeEach
    void needsCuda() {
        Requirements.assumeDevice("cuda", Devices.provider("cuda").probe(), "needs a CUDA GPU");
    }

    @Nested
    class PerDevice implements EngineUnderTest {
        @Override
        public EngineSetup setup() {
            return EngineSetup.of("perdevice").withContexts(CONTEXTS);
        }

        @Nested
        class Ordering extends OrderingConformance { }

        @Nested
        class Failure extends FailureConformance { }
    }

    @Nested
    class Pooled implements EngineUnderTest {
        @Override
        public EngineSetup setup() {
            return EngineSetup.of("pooled").withContexts(CONTEXTS);
        }

        @Nested
        class Ordering extends OrderingConformance { }

        @Nested
        class Failure extends FailureConformance { }
    }
}
