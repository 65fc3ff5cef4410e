package org.depengine.examples.customdevice;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.testkit.OrderingConformance;
import org.junit.jupiter.api.Nested;

/**
 * The engines' shared ordering suite with ops spread over the plugin's devices and the CPU: every op
 * on {@code sim:N} is done only when its lane's completion marker has run on the lane's thread, so
 * this checks that asynchronous completion through a third-party device keeps the serial result.
 */
class SimConformanceTest {
    @Nested
    class PerDevice extends OrderingConformance {
        @Override
        protected String engineName() {
            return "perdevice";
        }

        @Override
        protected List<Context> contexts() {
            return List.of(Context.of("sim", 0), Context.of("sim", 1), Context.cpu());
        }
    }

    @Nested
    class Pooled extends OrderingConformance {
        @Override
        protected String engineName() {
            return "pooled";
        }

        @Override
        protected List<Context> contexts() {
            return List.of(Context.of("sim", 0), Context.cpu());
        }
    }
}
