/**
 * Settings: the one parser of {@code depengine.*} values. A module declares each setting it reads as a
 * {@link org.depengine.api.settings.Setting}, lists them in a
 * {@link org.depengine.api.settings.SettingsCatalog}, and reads values through
 * {@link org.depengine.api.settings.Settings}, so every value is parsed one way, every error names the
 * setting, its value and its source, an unknown key is warned about, and the settings reference is
 * generated from the declarations.
 */
package org.depengine.api.settings;
