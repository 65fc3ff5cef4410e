package org.depengine.testkit;

import java.util.List;
import org.depengine.api.FnProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several threads pushing at once: every run must be serialisable in an order that keeps each
 * thread's push order, and equal a serial replay of it. The short form runs in every build; with
 * {@code -Ddepengine.test.long=true} the stress form runs many more seeds and ops.
 */
public abstract class ConcurrencyConformance extends EngineTestBase {
    /** Whether the long stress forms were asked for. */
    protected static boolean longRuns() {
        return Boolean.getBoolean("depengine.test.long");
    }

    /** The properties drawn in the stress workloads. */
    protected List<FnProperty> stressProperties() {
        return List.of(FnProperty.NORMAL, FnProperty.NORMAL, FnProperty.ASYNC, FnProperty.CPU_PRIORITIZED,
                FnProperty.COPY_TO_DEVICE, FnProperty.COPY_FROM_DEVICE, FnProperty.NO_SKIP);
    }

    @ParameterizedTest(name = "{0} pushers")
    @ValueSource(ints = {1, 2, 4, 8})
    void concurrentPushersAreSerialisable(int pushers) throws Exception {
        int seeds = longRuns() ? 50 : 3;
        for (int seed = 0; seed < seeds; seed++) {
            ConcurrentPushers.generate(pushers, 1 + (seed * 37) % 100, longRuns() ? 5_000 : 800, seed * 1000L + pushers,
                    contexts(), stressProperties()).runAndCheck(engine);
        }
    }

    @Test
    void manyPushersOnOneHotVariable() throws Exception {
        ConcurrentPushers.generate(8, 1, longRuns() ? 20_000 : 1_000, 42, contexts(), List.of(FnProperty.NORMAL, FnProperty.ASYNC))
                .runAndCheck(engine);
    }
}
