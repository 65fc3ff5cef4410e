package org.depengine.kvstore.local;

import java.util.Objects;
import java.util.Set;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.spi.KVStoreProvider;

/** Provides the {@code local} store. */
public final class LocalKVStoreProvider implements KVStoreProvider {
    /** The type this provider makes. */
    public static final String TYPE = "local";

    /** For {@link java.util.ServiceLoader}. */
    public LocalKVStoreProvider() {
    }

    @Override
    public Set<String> types() {
        return Set.of(TYPE);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the settings name more than one worker (a local store has one)
     */
    @Override
    public KVStore open(Engine engine, String type, KVStoreSettings settings) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(settings, "settings");
        if (!TYPE.equals(type)) {
            throw new IllegalArgumentException("this provider makes '" + TYPE + "' stores, not '" + type + "'");
        }
        if (settings.numWorkers() != 1) {
            throw new IllegalArgumentException("a 'local' store has one worker, but " + KVStore.PROPERTY_PREFIX
                    + KVStoreSettings.NUM_WORKERS + "=" + settings.numWorkers() + "; use 'dist_sync' or 'dist_async' "
                    + "for several workers");
        }
        return new LocalKVStore(engine, settings);
    }
}
