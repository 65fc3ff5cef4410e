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
        for (String key : List.of("depengine.engine", "depengine.pooled.workers", "depengine.profiler.htmlFile",
                "depengine.device.opencl.disabled", "depengine.device.sim.disabled", "depengine.test.requireDevices",
                "depengine.kvstore.anything", "depengine.hangDoctorMs", Devices.KEEP_OPEN_PROPERTY)) {
            assertTrue(KnownSettings.isKnown(key), key);
        }
        for (String key : List.of("depengine.pooled.worker", "depengine.device..disabled", "depengine.device.a.b.disabled",
                "depengine.test.", "depengine.profiler.html")) {
            assertFalse(KnownSettings.isKnown(key), key);
        }
    }

    @Test
    void aMistypedBuilderKeyIsWarnedOnceNamingTheClosestKey() {
        EngineConfig config = EngineConfig.of(Map.of("depengine.pooled.worker", "4", "depengine.cpu.workers", "2",
                "other.key", "x"));
        List<String> first = config.warnUnknownKeys();
        assertEquals(1, first.size(), first.toString());
        String w = first.get(0);
        assertTrue(w.contains("setting depengine.pooled.worker (given to EngineConfig)"), w);
        assertTrue(w.contains("did you mean depengine.pooled.workers?"), w);
        assertEquals(List.of(), config.warnUnknownKeys(), "once per key");
    }

    @Test
    void aMistypedSystemPropertyIsWarnedNamingItsSource() {
        System.setProperty("depengine.device.opencl.disabeld", "true");
        try {
            List<String> w = EngineConfig.fromSystemProperties().warnUnknownKeys();
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
        assertTrue(given.getMessage().startsWith("setting depengine.cpu.workers (given to EngineConfig)='many'"),
                given.getMessage());
        System.setProperty("depengine.cpu.priorityWorkers", "0");
        try {
            EngineConfig fromProps = EngineConfig.fromSystemProperties();
            IllegalArgumentException prop = assertThrows(IllegalArgumentException.class,
                    () -> fromProps.getInt("depengine.cpu.priorityWorkers", 1, 1, 8));
            assertTrue(prop.getMessage().startsWith("system property depengine.cpu.priorityWorkers=0"), prop.getMessage());
            IllegalArgumentException added = assertThrows(IllegalArgumentException.class,
                    () -> fromProps.with("depengine.device.releaseAtLaunch", "maybe").getBoolean("depengine.device.releaseAtLaunch", true));
            assertTrue(added.getMessage().startsWith("setting depengine.device.releaseAtLaunch (given to EngineConfig)"),
                    added.getMessage());
        } finally {
            System.clearProperty("depengine.cpu.priorityWorkers");
        }
    }
}
