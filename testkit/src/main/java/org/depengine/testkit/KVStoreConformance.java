package org.depengine.testkit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every KVStore suite, on one store type, over the cross product of engines and worker counts, by the
 * mechanism of {@link EngineConformance}: a store module extends this once, giving its {@link #store()}
 * (how to open its stores, what they can do, the engines to cross them with, the invariants they leave),
 * and JUnit runs each suite as a {@link Nested} class of a nested configuration class (a failure's
 * message names the point: the engine's setup, and the store's {@link StoreSetup#label()}).
 *
 * <p>A point the store does not take (an engine it is not crossed with, more workers than it opens) is
 * disabled with the reason, and so is a suite at a worker count it does not run with ({@link Workers}),
 * and a case at a point that lacks what it {@link Needs}. The short form (the default) runs a deterministic
 * sample, the long form ({@code -Ddepengine.test.long=true}) all of it: see {@link KVStoreCrossing}.
 */
public abstract class KVStoreConformance implements StoreUnderTest {
    /** The store under test; called once per test, so return a constant (its opener may use the class's static state). */
    @Override
    public abstract StoreSetup store();

    @Nested
    @InStore(engine = "naive", workers = 1)
    @DisplayName("naive, 1 worker")
    class NaiveOne extends Configured { }

    @Nested
    @InStore(engine = "pooled", workers = 1)
    @DisplayName("pooled, 1 worker")
    class PooledOne extends Configured { }

    @Nested
    @InStore(engine = "perdevice", workers = 1)
    @DisplayName("perdevice, 1 worker")
    class PerDeviceOne extends Configured { }

    @Nested
    @InStore(engine = "pooled", workers = 2)
    @DisplayName("pooled, 2 workers")
    class PooledTwo extends Configured { }

    @Nested
    @InStore(engine = "perdevice", workers = 2)
    @DisplayName("perdevice, 2 workers")
    class PerDeviceTwo extends Configured { }

    @Nested
    @InStore(engine = "pooled", workers = 3)
    @DisplayName("pooled, 3 workers")
    class PooledThree extends Configured { }

    @Nested
    @InStore(engine = "perdevice", workers = 3)
    @DisplayName("perdevice, 3 workers")
    class PerDeviceThree extends Configured { }

    /**
     * The suites, at the point named by the subclass's {@link InStore}. One line a suite; the class name is
     * the suite's name in the test report.
     */
    @ExtendWith(KVStoreCrossing.class)
    abstract class Configured implements StoreUnderTest, EngineUnderTest {
        private StoreSetup point() {
            InStore at = getClass().getAnnotation(InStore.class);
            return KVStoreConformance.this.store().in(at.engine(), at.workers());
        }

        @Override
        public StoreSetup store() {
            return point();
        }

        @Override
        public EngineSetup setup() {
            return point().engineSetup();
        }

        @Nested
        class Basics extends BasicsSuite { }

        @Nested
        class Updaters extends UpdatersSuite { }

        @Nested
        class Failures extends FailuresSuite { }

        @Nested
        class Checkpoints extends CheckpointsSuite { }

        @Nested
        class Membership extends MembershipSuite { }

        @Nested
        class Rounds extends RoundsSuite { }

        @Nested
        class Capture extends CaptureSuite { }

        @Nested
        class Priority extends PrioritySuite { }

        @Nested
        class Stats extends StatsSuite { }
    }
}
