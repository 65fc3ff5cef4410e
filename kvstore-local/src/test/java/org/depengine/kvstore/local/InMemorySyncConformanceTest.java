package org.depengine.kvstore.local;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.testkit.KVStoreConformance;
import org.junit.jupiter.api.AfterEach;

/**
 * The shared suite on {@link InMemorySyncStore}, a stand-in for a distributed sync store, with up to 3
 * workers: it checks that the suite's multi-worker cases and {@code AbstractKVStore}'s seam work
 * before a real distributed store runs them.
 */
class InMemorySyncConformanceTest extends KVStoreConformance {
    private final List<InMemorySyncStore.Server> servers = new ArrayList<>();

    @Override
    protected String engineName() {
        return "perdevice";
    }

    @Override
    protected Map<String, String> settings() {
        return Map.of("depengine.cpu.priorityWorkers", "1");
    }

    @Override
    protected int maxWorkers() {
        return 3;
    }

    @Override
    protected List<KVStore> openStores(List<Engine> engines) {
        InMemorySyncStore.Server server = new InMemorySyncStore.Server(engines.size());
        servers.add(server);
        List<KVStore> stores = new ArrayList<>();
        for (int r = 0; r < engines.size(); r++) {
            KVStoreSettings s = KVStoreSettings.builder().numWorkers(engines.size()).rank(r).build();
            stores.add(new InMemorySyncStore(engines.get(r), s, server));
        }
        return stores;
    }

    @AfterEach
    void closeServers() {
        servers.forEach(InMemorySyncStore.Server::close);
        servers.clear();
    }
}
