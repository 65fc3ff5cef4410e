package org.depengine.testkit;

import java.util.List;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class that names the KVStore its {@code @Nested} {@link KVStoreSuite}s run on:
 * {@link KVStoreConformance} and its configuration classes. Before each test, the innermost enclosing
 * instance that implements this hands its setup to the suite.
 */
@ExtendWith(StoreUnderTest.UseEnclosingStore.class)
public interface StoreUnderTest {
    /** The store under test, at this class's point of the cross product; called once per test. */
    StoreSetup store();

    /** Gives each suite the store setup of its innermost enclosing {@link StoreUnderTest}. */
    final class UseEnclosingStore implements BeforeEachCallback {
        @Override
        public void beforeEach(ExtensionContext context) {
            List<Object> enclosing = context.getRequiredTestInstances().getEnclosingInstances();
            StoreUnderTest owner = null;
            for (Object o : enclosing) { // outermost first: the last match is the innermost
                if (o instanceof StoreUnderTest u) {
                    owner = u;
                }
            }
            if (owner != null && context.getRequiredTestInstance() instanceof KVStoreSuite suite) {
                suite.useStore(owner.store());
            }
        }
    }
}
