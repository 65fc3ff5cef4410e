package org.depengine.examples.customdevice;

import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/**
 * The plugin's settings, declared so that depengine parses them as it parses its own and knows their
 * keys (a mistyped one is warned about): a plugin lists its catalog with {@code provides} and in
 * {@code META-INF/services}, as it lists its device provider.
 */
public final class SimSettings implements SettingsCatalog {
    /** {@value SimDeviceProvider#DEVICES_PROPERTY}. */
    public static final Setting<Integer> DEVICES = Setting.ofInt(SimDeviceProvider.DEVICES_PROPERTY,
            SimDeviceProvider.DEFAULT_DEVICES, 1, 64, "How many simulated devices the sim plugin offers.");
    /** {@value SimDeviceProvider#LATENCY_PROPERTY}. */
    public static final Setting<Integer> LATENCY_MICROS = Setting.ofInt(SimDeviceProvider.LATENCY_PROPERTY,
            SimDeviceProvider.DEFAULT_LATENCY_MICROS, 0, 1_000_000,
            "How long each command takes on a simulated lane, in microseconds.");

    /** For {@link java.util.ServiceLoader}. */
    public SimSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(DEVICES, LATENCY_MICROS);
    }
}
