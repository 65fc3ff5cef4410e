package org.depengine.kvstore.spi;

import java.util.Set;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;

/**
 * Makes stores of one or more types. Found with {@link java.util.ServiceLoader}: declare the
 * implementation with {@code provides org.depengine.kvstore.spi.KVStoreProvider with ...} in
 * module-info and in {@code META-INF/services/org.depengine.kvstore.spi.KVStoreProvider}. It must have
 * a public no-argument constructor, and be cheap to instantiate (no network in the constructor).
 * Thread-safe. The settings a provider's stores read beyond {@link KVStoreSettings}' own are declared as
 * {@link org.depengine.api.settings.Setting}s in its module's
 * {@link org.depengine.api.settings.SettingsCatalog}, and read with {@link KVStoreSettings#get(org.depengine.api.settings.Setting)}.
 */
public interface KVStoreProvider {
    /** The store types this provider makes, e.g. {@code {"dist_sync", "dist_async"}}; not empty. */
    Set<String> types();

    /**
     * Opens a store of {@code type} (one of {@link #types()}).
     *
     * @throws IllegalArgumentException if the settings do not suit the type
     * @throws org.depengine.kvstore.KVStoreException if the store cannot be set up
     */
    KVStore open(Engine engine, String type, KVStoreSettings settings);
}
