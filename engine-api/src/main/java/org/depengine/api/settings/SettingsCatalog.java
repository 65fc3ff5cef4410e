package org.depengine.api.settings;

import java.util.List;

/**
 * The settings one module reads, found with {@link java.util.ServiceLoader}: a module that reads
 * {@code depengine.*} settings declares {@code provides org.depengine.api.settings.SettingsCatalog with ...}
 * in its module-info and lists the same class in {@code META-INF/services}. {@link Settings#catalog()}
 * gathers every catalog, an unknown key is warned about against them, and the settings reference is
 * generated from them.
 *
 * <p>An implementation has a public no-argument constructor, touches nothing at construction, and
 * returns the same lists every time.
 */
public interface SettingsCatalog {
    /**
     * The module's settings, each declared once in the whole project.
     *
     * @return the settings
     */
    List<Setting<?>> settings();

    /**
     * Key prefixes, each ending in a dot, under which the module validates keys itself (a test switch
     * family, say); empty by default. Keys under them are never warned about as unknown.
     *
     * @return the prefixes
     */
    default List<String> namespaces() {
        return List.of();
    }
}
