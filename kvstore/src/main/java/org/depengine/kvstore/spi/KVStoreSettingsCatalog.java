package org.depengine.kvstore.spi;

import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/**
 * The KVStore's settings for the project's catalog: the {@code depengine.kvstore.*} namespace, whose keys
 * {@link org.depengine.kvstore.KVStoreSettings} validates itself (it warns about unknown ones, knowing the providers' names).
 */
public final class KVStoreSettingsCatalog implements SettingsCatalog {
    /** For {@link java.util.ServiceLoader}. */
    public KVStoreSettingsCatalog() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of();
    }

    @Override
    public List<String> namespaces() {
        return List.of(org.depengine.kvstore.KVStore.PROPERTY_PREFIX);
    }
}
