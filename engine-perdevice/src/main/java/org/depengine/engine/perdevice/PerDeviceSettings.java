package org.depengine.engine.perdevice;

import java.util.List;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/** The settings of the {@code perdevice} engine. */
public final class PerDeviceSettings implements SettingsCatalog {
    /** {@code depengine.cpu.workers}: workers per CPU device id. */
    public static final Setting<Integer> CPU_WORKERS = Setting.ofInt("depengine.cpu.workers",
            Runtime.getRuntime().availableProcessors(), "the number of cores", 1, 4096,
            "Workers for each CPU device id's normal-priority ops.");
    /** {@code depengine.cpu.priorityWorkers}: the CPU priority pool. */
    public static final Setting<Integer> CPU_PRIORITY_WORKERS = Setting.ofInt("depengine.cpu.priorityWorkers", 2, 1,
            4096, "Workers of the pool that runs every CPU op pushed with a priority above normal.");
    /** {@code depengine.device.workers}: compute workers per accelerator. */
    public static final Setting<Integer> DEVICE_WORKERS = Setting.ofInt("depengine.device.workers", 2, 1, 1024,
            "Compute workers per accelerator device, each owning one stream.");
    /** {@code depengine.device.copyWorkers}: copy workers per accelerator. */
    public static final Setting<Integer> DEVICE_COPY_WORKERS = Setting.ofInt("depengine.device.copyWorkers", 1, 1,
            1024, "Copy workers per accelerator device, each owning one stream.");
    /** {@code depengine.device.priorityWorkers}: priority workers per accelerator. */
    public static final Setting<Integer> DEVICE_PRIORITY_WORKERS = Setting.ofInt("depengine.device.priorityWorkers",
            1, 1, 1024, "Workers per accelerator device for ops pushed with a priority above normal.");
    /** {@code depengine.device.releaseAtLaunch}: release a device op's variables when it is launched. */
    public static final Setting<Boolean> RELEASE_AT_LAUNCH = Setting.ofBoolean("depengine.device.releaseAtLaunch",
            true, "Release an async device op's variables to its successors on the same stream when it is launched, "
                    + "not when the device finishes it (OneFlow's launched-versus-done).");

    /** For {@link java.util.ServiceLoader}. */
    public PerDeviceSettings() {
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(CPU_WORKERS, CPU_PRIORITY_WORKERS, DEVICE_WORKERS, DEVICE_COPY_WORKERS, DEVICE_PRIORITY_WORKERS,
                RELEASE_AT_LAUNCH);
    }
}
