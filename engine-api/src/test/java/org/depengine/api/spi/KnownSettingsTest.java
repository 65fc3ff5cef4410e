package org.depengine.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.depengine.api.device.Devices;
import org.junit.jupiter.api.Test;

/** Unknown {@code depengine.*} keys are warned about once, with the closest key; errors say where a value came from. */
class KnownSettingsTest {
    @Test
    void knowsTheProjectsKeysThePerTypeKeyAndTheDelegatedNamespaces() {
        // engine-api's own catalog is the only one on this module's test path; each module's catalog is
        // checked where every module is present (the settings reference's test).
        for (String key : List.of("depengine.engine", "depengine.exitTimeoutMs", "depengine.device.opencl.disabled",
                "depengine.device.sim.disabled", "depengine.test.requireDevices", Devices.KEEP_OPEN_PROPERTY)) {
            assertTrue(KnownSettings.isKnown(key), key);
        }
        for (String key : List.of("depengine.engin", "depengine.device..disabled", "depengine.device.a.b.disabled",
                "depengine.test.", "depengine.device.opencl.disabled.x")) {
            assertFalse(KnownSettings.isKnown(key), key);
        }
    }

    @Test
    void aMistypedBuilderKeyIsWarnedOnceNamingTheClosestKey() {
        EngineConfig config = EngineConfig.of(Map.of("depengine.exitTimeoutM", "4", "depengine.engine", "naive",
                "other.key", "x"));
        List<String> first = config.warnUnknownKeys();
        assertEquals(1, first.size(), first.toString());
        String w = first.get(0);
        assertTrue(w.contains("setting depengine.exitTimeoutM (given to EngineConfig)"), w);
        assertTrue(w.contains("did you mean depengine.exitTimeoutMs?"), w);
        assertEquals(List.of(), config.warnUnknownKeys(), "once per key");
    }

    @Test
    void aMistypedSystemPropertyIsWarnedNamingItsSource() {
        System.setProperty("depengine.device.opencl.disabeld", "true");
        try {
            // Only the mistyped key: the build sets other modules' settings, unknown on this module's path.
            List<String> w = EngineConfig.fromSystemProperties().warnUnknownKeys().stream()
                    .filter(s -> s.contains("disabeld")).toList();
            assertEquals(1, w.size(), w.toString());
            assertTrue(w.get(0).contains("system property depengine.device.opencl.disabeld"), w.get(0));
            assertTrue(w.get(0).contains("did you mean depengine.device.opencl.disabled?"), w.get(0));
        } finally {
            System.clearProperty("depengine.device.opencl.disabeld");
        }
    }

    @Test
    void errorsNameWhereTheValueCameFrom() {
        IllegalArgumentException given = assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.of(Map.of("depengine.cpu.workers", "many")).getInt("depengine.cpu.workers", 1, 1, 8));
        assertEquals("setting depengine.cpu.workers (given to EngineConfig)='many' is invalid: expected a whole number in [1, 8]",
                given.getMessage());
        System.setProperty("depengine.cpu.priorityWorkers", "0");
        try {
            EngineConfig fromProps = EngineConfig.fromSystemProperties();
            IllegalArgumentException prop = assertThrows(IllegalArgumentException.class,
                    () -> fromProps.getInt("depengine.cpu.priorityWorkers", 1, 1, 8));
            assertEquals("system property depengine.cpu.priorityWorkers='0' is invalid: expected a whole number in [1, 8]",
                    prop.getMessage());
            IllegalArgumentException added = assertThrows(IllegalArgumentException.class,
                    () -> fromProps.with("depengine.device.releaseAtLaunch", "maybe").getBoolean("depengine.device.releaseAtLaunch", true));
            assertTrue(added.getMessage().startsWith("setting depengine.device.releaseAtLaunch (given to EngineConfig)"),
                    added.getMessage());
        } finally {
            System.clearProperty("depengine.cpu.priorityWorkers");
        }
    }
}
