package org.depengine.api.internal;

import java.time.Duration;
import java.util.List;
import org.depengine.api.Engine;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/** The settings engine-api reads: which engine {@link Engine#get()} makes, the exit hook's bound and the device switches. */
public final class ApiSettings implements SettingsCatalog {
    /** {@value Engine#ENGINE_PROPERTY}: the engine {@link Engine#get()} creates. */
    public static final Setting<String> ENGINE = Setting.ofText(Engine.ENGINE_PROPERTY, Engine.DEFAULT_ENGINE,
            "The engine Engine.get() creates: naive, pooled, perdevice, or a plugin's name.");

    /** {@code depengine.exitTimeoutMs}: how long the exit hook waits for the process-wide engine's ops. */
    public static final Setting<Duration> EXIT_TIMEOUT = Setting.ofMillis("depengine.exitTimeoutMs",
            Duration.ofSeconds(30), Duration.ZERO, Duration.ofMillis(Long.MAX_VALUE),
            "How long the JVM's exit hook waits for the process-wide engine's pending ops before logging them and "
                    + "letting the JVM exit.");

    /** {@code depengine.device.keepOpen}: keep devices open after their last engine closes. */
    public static final Setting<Boolean> KEEP_OPEN = Setting.ofBoolean("depengine.device.keepOpen", false,
            "Keep every device open after the last engine using it closes (saves reopening in tests that "
                    + "create many engines).");

    /** {@code depengine.device.<type>.disabled}: switch one device type off. */
    public static final Setting<Boolean> DISABLED = Setting.ofBoolean("depengine.device.<type>.disabled", false,
            "Switch a device type off: its provider reports itself unavailable with this reason.");

    /**
     * The off switch of one device type, declared by {@link #DISABLED}.
     *
     * @param type the device type, e.g. {@code "opencl"}
     * @return the setting
     */
    public static Setting<Boolean> disabled(String type) {
        return Setting.ofBoolean("depengine.device." + type + ".disabled", false, DISABLED.description());
    }

    /** For {@link java.util.ServiceLoader}. */
    public ApiSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(ENGINE, EXIT_TIMEOUT, KEEP_OPEN, DISABLED);
    }

    /** The test suites' switches, {@code depengine.test.*}, are read by the test kit and the build. */
    @Override
    public List<String> namespaces() {
        return List.of("depengine.test.");
    }
}
