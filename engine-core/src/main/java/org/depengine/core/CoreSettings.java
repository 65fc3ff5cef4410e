package org.depengine.core;

import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/** The settings engine-core reads, for every engine. */
public final class CoreSettings implements SettingsCatalog {
    /** {@code depengine.hangDoctorMs}: a wait longer than this logs the engine's diagnostics once; 0 turns it off. */
    public static final Setting<Integer> HANG_DOCTOR_MS = Setting.ofInt("depengine.hangDoctorMs", 60_000, 0,
            Integer.MAX_VALUE, "A wait that takes longer than this many milliseconds logs the engine's diagnostics "
                    + "(pending ops, what each waits for) once, at WARN; 0 turns it off.");

    /** For {@link java.util.ServiceLoader}. */
    public CoreSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(HANG_DOCTOR_MS);
    }
}
