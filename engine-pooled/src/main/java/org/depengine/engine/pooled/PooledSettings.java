package org.depengine.engine.pooled;

import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/** The settings of the {@code pooled} engine. */
public final class PooledSettings implements SettingsCatalog {
    /** {@code depengine.pooled.workers}: the shared compute workers. */
    public static final Setting<Integer> WORKERS = Setting.ofInt("depengine.pooled.workers",
            Runtime.getRuntime().availableProcessors(), "the number of cores", 1, 4096,
            "The pooled engine's compute workers, shared by every device.");
    /** {@code depengine.pooled.copyWorkers}: the shared copy workers. */
    public static final Setting<Integer> COPY_WORKERS = Setting.ofInt("depengine.pooled.copyWorkers", 1, 1, 4096,
            "The pooled engine's workers for copy ops, shared by every device.");

    /** For {@link java.util.ServiceLoader}. */
    public PooledSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(WORKERS, COPY_WORKERS);
    }
}
