package org.depengine.kvstore.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The members, engines and stores a store test starts in this JVM, closed after each test (register it with
 * {@code @RegisterExtension}): the stores first (a killed worker's too: its member is gone, but its data transport
 * must close, and the conformance suites check that no closed store's transport stays open), then the engines,
 * then the members still running.
 */
final class JobParts implements AfterEachCallback {
    final List<HazelcastInstance> members = new ArrayList<>();
    final List<Engine> engines = new ArrayList<>();
    final List<KVStore> stores = new ArrayList<>();

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    /** Closes every store (the killed workers' too), engine and running member now; the lists are empty after. */
    void close() {
        stores.forEach(KVStore::close);
        engines.forEach(Engine::close);
        members.forEach(m -> {
            if (m.getLifecycleService().isRunning()) {
                m.shutdown();
            }
        });
        stores.clear();
        engines.clear();
        members.clear();
    }
}
