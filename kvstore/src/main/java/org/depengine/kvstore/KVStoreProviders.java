package org.depengine.kvstore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import org.depengine.kvstore.spi.KVStoreProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link KVStoreProvider}s on the class or module path, found once. A provider may offer several
 * types, so each type maps to the providers claiming it; a provider that fails to load is remembered
 * for the error messages, never silently dropped.
 */
final class KVStoreProviders {
    private static final Logger LOG = LoggerFactory.getLogger(KVStoreProviders.class);
    private static final String HOW_TO_ADD = "Add the store's module to the class or module path (kvstore-local for "
            + "'local', kvstore-hazelcast for 'dist_sync' and 'dist_async'); a store implements "
            + "org.depengine.kvstore.spi.KVStoreProvider and declares it with 'provides' in module-info and in "
            + "META-INF/services.";

    private static volatile KVStoreProviders instance;

    private final Map<String, List<KVStoreProvider>> byType;
    private final List<KVStoreProvider> all;
    private final List<String> broken;

    private KVStoreProviders(Map<String, List<KVStoreProvider>> byType, List<KVStoreProvider> all, List<String> broken) {
        this.byType = byType;
        this.all = all;
        this.broken = broken;
    }

    private static KVStoreProviders get() {
        KVStoreProviders p = instance;
        if (p == null) {
            synchronized (KVStoreProviders.class) {
                p = instance;
                if (p == null) {
                    p = load();
                    instance = p;
                }
            }
        }
        return p;
    }

    private static KVStoreProviders load() {
        Map<String, List<KVStoreProvider>> byType = new LinkedHashMap<>();
        List<KVStoreProvider> all = new ArrayList<>();
        List<String> broken = new ArrayList<>();
        Set<Class<?>> seen = new LinkedHashSet<>();
        List<ClassLoader> loaders = new ArrayList<>();
        ClassLoader own = KVStoreProviders.class.getClassLoader();
        loaders.add(own == null ? ClassLoader.getSystemClassLoader() : own);
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        if (tccl != null && tccl != own) {
            loaders.add(tccl);
        }
        for (ClassLoader cl : loaders) {
            var it = ServiceLoader.load(KVStoreProvider.class, cl).stream().iterator();
            while (true) {
                ServiceLoader.Provider<KVStoreProvider> provider;
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    provider = it.next();
                    if (!seen.add(provider.type())) {
                        continue; // the same class seen through a second class loader
                    }
                } catch (ServiceConfigurationError e) {
                    broken.add(e.getMessage());
                    LOG.warn("a KVStore provider could not be loaded: {}", e.getMessage(), e);
                    continue;
                }
                try {
                    KVStoreProvider p = provider.get();
                    all.add(p);
                    for (String type : p.types()) {
                        byType.computeIfAbsent(type, k -> new ArrayList<>()).add(p);
                    }
                } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                    String msg = provider.type().getName() + " failed to load: " + e;
                    broken.add(msg);
                    LOG.warn("KVStore provider {}", msg, e);
                }
            }
        }
        return new KVStoreProviders(byType, List.copyOf(all), List.copyOf(broken));
    }

    static List<String> types() {
        return List.copyOf(get().byType.keySet());
    }

    /**
     * The one provider of {@code type}.
     *
     * @throws IllegalArgumentException if none or several claim it
     */
    static KVStoreProvider require(String type) {
        KVStoreProviders p = get();
        List<KVStoreProvider> ps = p.byType.get(type);
        if (ps == null || ps.isEmpty()) {
            StringBuilder sb = new StringBuilder("unknown KVStore type '").append(type).append("'; types found: ")
                    .append(p.byType.isEmpty() ? "none" : String.join(", ", p.byType.keySet())).append(". ")
                    .append(HOW_TO_ADD);
            if (!p.broken.isEmpty()) {
                sb.append(" Providers that failed to load: ").append(String.join("; ", p.broken));
            }
            throw new IllegalArgumentException(sb.toString());
        }
        if (ps.size() > 1) {
            List<String> classes = new ArrayList<>();
            for (KVStoreProvider x : ps) {
                classes.add(x.getClass().getName());
            }
            throw new IllegalArgumentException("several KVStore providers offer type '" + type + "': "
                    + String.join(" and ", classes) + "; remove all but one from the class or module path");
        }
        return ps.get(0);
    }
}
