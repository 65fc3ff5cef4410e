package org.depengine.core;

import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;
import org.depengine.core.exec.OpTimings;

/** The settings engine-core reads, for every engine. */
public final class CoreSettings implements SettingsCatalog {
    /** {@code depengine.hangDoctorMs}: a wait longer than this logs the engine's diagnostics once; 0 turns it off. */
    public static final Setting<Integer> HANG_DOCTOR_MS = Setting.ofInt("depengine.hangDoctorMs", 60_000, 0,
            Integer.MAX_VALUE, "A wait that takes longer than this many milliseconds logs the engine's diagnostics "
                    + "(pending ops, what each waits for) once, at WARN; 0 turns it off.");

    /**
     * {@code depengine.metrics.timingSampleInterval}: one op in this many has its queue wait and run time
     * taken for {@link org.depengine.api.Engine#metrics()}; 0 turns timing off.
     */
    public static final Setting<Integer> TIMING_SAMPLE_INTERVAL = Setting.of("depengine.metrics.timingSampleInterval",
            "0 or a power of two in [1, " + OpTimings.MAX_INTERVAL + "]", 64, "64",
            "One op in this many has its queue wait and run time taken for Engine.metrics() (the executor and "
                    + "executor.idle timers of depengine-micrometer), chosen by a hash of the op's id; 1 times "
                    + "every op, 0 none. Each timed op costs two clock reads.",
            t -> OpTimings.checkInterval(Integer.parseInt(t)));

    /** For {@link java.util.ServiceLoader}. */
    public CoreSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(HANG_DOCTOR_MS, TIMING_SAMPLE_INTERVAL);
    }
}
