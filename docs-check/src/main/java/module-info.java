/**
 * Keeps the guide true to the code: reads the guide's Markdown (its code blocks and tables) and generates the
 * settings reference from every module's {@link org.depengine.api.settings.SettingsCatalog}. Not published;
 * its tests are what run in every build (see {@code docs/guide/README.md}).
 */
module org.depengine.docscheck {
    requires transitive org.depengine.api;

    exports org.depengine.docscheck;

    uses org.depengine.api.settings.SettingsCatalog;
}
