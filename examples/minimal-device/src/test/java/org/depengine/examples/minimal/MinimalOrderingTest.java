package org.depengine.examples.minimal;

import java.util.List;
import org.depengine.api.Context;
import org.depengine.testkit.OrderingConformance;
import org.junit.jupiter.api.Nested;

/** The engines' ordering suite with ops spread over the plugin's two devices and the CPU. */
class MinimalOrderingTest {
    @Nested
    class PerDevice extends OrderingConformance {
        @Override
        protected String engineName() {
            return "perdevice";
        }

        @Override
        protected List<Context> contexts() {
            return List.of(Context.of("minimal", 0), Context.of("minimal", 1), Context.cpu());
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
            return List.of(Context.of("minimal", 0), Context.cpu());
        }
    }
}
