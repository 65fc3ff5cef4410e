package org.depengine.api.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one parser: each kind of value, its range, and the one error form. */
class SettingTest {
    private static final Setting<Integer> WORKERS = Setting.ofInt("depengine.x.workers", 2, 1, 8, "workers");
    private static final Setting<Long> BIG = Setting.ofLong("depengine.x.big", 1, 1, Long.MAX_VALUE, "big");
    private static final Setting<Duration> TIMEOUT = Setting.ofMillis("depengine.x.timeoutMs", Duration.ofSeconds(5),
            Duration.ofMillis(1), Duration.ofMillis(Long.MAX_VALUE), "timeout");

    enum Mode { EMBEDDED, CLIENT }

    @Test
    void wholeNumbersAreReadWithTheirRangeAndBlanksAroundIgnored() {
        assertEquals(3, WORKERS.parse(" 3 ", "w"));
        assertEquals(Long.MAX_VALUE, BIG.parse("9223372036854775807", "w"));
        assertEquals("system property depengine.x.workers='9' is invalid: expected a whole number in [1, 8]",
                assertThrows(IllegalArgumentException.class, () -> WORKERS.parse("9", "system property depengine.x.workers"))
                        .getMessage());
        for (String bad : List.of("", "two", "2.0", "0x2", "99999999999999999999")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WORKERS.parse(bad, "w"));
            assertEquals("w='" + bad + "' is invalid: expected a whole number in [1, 8]", e.getMessage());
        }
    }

    @Test
    void durationsTakeBareMillisOrAUnitAndAreRangeChecked() {
        assertEquals(Duration.ofMillis(1500), TIMEOUT.parse("1500", "w"));
        assertEquals(Duration.ofMillis(1500), TIMEOUT.parse("1500ms", "w"));
        assertEquals(Duration.ofSeconds(30), TIMEOUT.parse("30s", "w"));
        assertEquals(Duration.ofMinutes(5), TIMEOUT.parse("5 m", "w"));
        assertEquals(Duration.ofHours(2), TIMEOUT.parse("2H", "w"));
        assertEquals(Duration.ofMillis(Long.MAX_VALUE), TIMEOUT.parse(Long.toString(Long.MAX_VALUE), "w"));
        for (String bad : List.of("0", "-1", "5d", "s", "1.5s", "9223372036854775807h")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TIMEOUT.parse(bad, "w"));
            assertTrue(e.getMessage().startsWith("w='" + bad + "' is invalid: expected a duration in [1 ms, "), e.getMessage());
        }
    }

    @Test
    void booleansChoicesTextsAndLists() {
        Setting<Boolean> on = Setting.ofBoolean("depengine.x.on", false, "on");
        assertEquals(true, on.parse(" TRUE ", "w"));
        assertEquals("w='yes' is invalid: expected true or false",
                assertThrows(IllegalArgumentException.class, () -> on.parse("yes", "w")).getMessage());
        Setting<Mode> mode = Setting.ofChoice("depengine.x.mode", Mode.class, Mode.EMBEDDED, "mode");
        assertEquals(Mode.CLIENT, mode.parse("Client", "w"));
        assertEquals("embedded", mode.defaultText());
        assertEquals("w='server' is invalid: expected one of embedded, client",
                assertThrows(IllegalArgumentException.class, () -> mode.parse("server", "w")).getMessage());
        Setting<String> name = Setting.ofText("depengine.x.name", null, "name");
        assertEquals("job", name.parse(" job ", "w"));
        assertThrows(IllegalArgumentException.class, () -> name.parse("  ", "w"));
        Setting<List<Integer>> ports = Setting.ofList("depengine.x.ports", "a port", t -> {
            int p = Integer.parseInt(t);
            if (p < 1 || p > 65535) {
                throw new IllegalArgumentException("port " + p + " is outside 1..65535");
            }
            return p;
        }, "ports");
        assertEquals(List.of(1, 2), ports.parse(" 1, ,2 ", "w"));
        assertEquals("w='1,70000' is invalid: expected a comma-separated list, each a port (port 70000 is outside 1..65535)",
                assertThrows(IllegalArgumentException.class, () -> ports.parse("1,70000", "w")).getMessage());
    }

    @Test
    void aPlaceholderKeyMatchesOneDotFreeSegment() {
        Setting<Boolean> off = Setting.ofBoolean("depengine.device.<type>.disabled", false, "off");
        assertTrue(off.matches("depengine.device.cuda.disabled"));
        assertFalse(off.matches("depengine.device..disabled"));
        assertFalse(off.matches("depengine.device.a.b.disabled"));
        assertFalse(off.matches("depengine.device.disabled"));
        assertTrue(WORKERS.matches("depengine.x.workers"));
        assertFalse(WORKERS.matches("depengine.x.worker"));
    }

    @Test
    void keysAreCheckedWhenDeclared() {
        assertThrows(IllegalArgumentException.class, () -> Setting.ofInt("other.key", 1, 1, 2, "d"));
        assertThrows(IllegalArgumentException.class, () -> Setting.ofInt("depengine.x", 1, 2, 1, "d"));
        assertThrows(IllegalArgumentException.class, () -> Setting.ofInt("depengine.x", 1, 1, 2, " "));
    }

    @Test
    void settingsNameWhereAValueCameFrom() {
        Settings given = Settings.of(Map.of("depengine.x.workers", "0"), "set on a builder");
        assertEquals("setting depengine.x.workers (set on a builder)='0' is invalid: expected a whole number in [1, 8]",
                assertThrows(IllegalArgumentException.class, () -> given.get(WORKERS)).getMessage());
        assertEquals(2, Settings.of(Map.of(), "x").get(WORKERS));
        assertEquals(5, given.with("depengine.x.workers", "5", "x").get(WORKERS));
        assertTrue(Settings.of(Map.of(), "x").find(WORKERS).isEmpty());
        System.setProperty("depengine.x.workers", "nine");
        try {
            assertEquals("system property depengine.x.workers='nine' is invalid: expected a whole number in [1, 8]",
                    assertThrows(IllegalArgumentException.class, () -> Settings.fromSystemProperties().get(WORKERS)).getMessage());
        } finally {
            System.clearProperty("depengine.x.workers");
        }
    }

    @Test
    void theCatalogHoldsEngineApisSettingsOnce() {
        assertTrue(Settings.declared("depengine.exitTimeoutMs").isPresent());
        assertTrue(Settings.declared("depengine.device.opencl.disabled").isPresent());
        assertEquals(Settings.catalog().size(), Settings.catalog().stream().map(Setting::key).distinct().count());
        assertTrue(Settings.namespaces().contains("depengine.test."));
    }
}
