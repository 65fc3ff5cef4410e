package org.depengine.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.depengine.api.settings.Settings;
import org.depengine.kvstore.spi.KVStoreSettingsCatalog;
import org.junit.jupiter.api.Test;

class KVStoreSettingsTest {

    @Test
    void describeNamesASettingAsTheParsersErrorsDo() {
        KVStoreSettings given = KVStoreSettings.builder().rank(1).numWorkers(2).build();
        assertEquals("setting depengine.kvstore.rank (set on KVStoreSettings.Builder)",
                given.describe(KVStoreSettingsCatalog.RANK));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KVStoreSettings.builder().set("rank", "first").build());
        assertTrue(e.getMessage().startsWith(given.describe(KVStoreSettingsCatalog.RANK) + "='first' is invalid"),
                e.getMessage());
    }

    @Test
    void defaultsAreOneWorkerOfRankZeroWithTheDocumentedBounds() {
        KVStoreSettings s = KVStoreSettings.defaults();
        assertEquals(0, s.rank());
        assertEquals(1, s.numWorkers());
        assertEquals(KVStoreSettings.DEFAULT_TIMEOUT_MS, s.timeoutMs());
        assertEquals(Optional.empty(), s.resume());
    }

    @Test
    void theBuilderKeepsWhatItIsGivenAndTheStoreSpecificSettingsAsText() {
        KVStoreSettings s = KVStoreSettings.builder().numWorkers(3).rank(2).timeoutMs(250).set("hazelcast.extra", "x")
                .set("resume", "/tmp/job.ckpt").build();
        assertEquals(2, s.rank());
        assertEquals(3, s.numWorkers());
        assertEquals(250, s.timeoutMs());
        assertEquals(Optional.of("x"), s.get("hazelcast.extra"));
        assertEquals(Optional.of("x"), s.get("depengine.kvstore.hazelcast.extra"), "a key works as the short name does");
        assertEquals(Optional.of(Path.of("/tmp/job.ckpt")), s.resume());
        assertEquals(s, s.toBuilder().build());
    }

    @Test
    void theStoreWideSettingsAreDeclaredInTheProjectsCatalog() {
        for (String key : new String[] {"depengine.kvstore.rank", "depengine.kvstore.numWorkers",
                "depengine.kvstore.timeoutMs", "depengine.kvstore.resume"}) {
            assertTrue(Settings.declared(key).isPresent(), key + " is declared");
        }
        assertEquals(4, new KVStoreSettingsCatalog().settings().size());
    }

    @Test
    void invalidValuesAreRefusedNamingTheSettingTheValueAndWhereItCameFrom() {
        assertInvalid(() -> KVStoreSettings.builder().rank(-1), "depengine.kvstore.rank", "'-1'", "KVStoreSettings.Builder");
        assertInvalid(() -> KVStoreSettings.builder().numWorkers(0), "depengine.kvstore.numWorkers");
        assertInvalid(() -> KVStoreSettings.builder().timeoutMs(0), "depengine.kvstore.timeoutMs");
        assertInvalid(() -> KVStoreSettings.builder().set("timeoutMs", "soon"), "depengine.kvstore.timeoutMs", "='soon'",
                "expected a duration");
        assertInvalid(() -> KVStoreSettings.builder().set("resume", " "), "depengine.kvstore.resume");
        assertInvalid(() -> KVStoreSettings.builder().rank(3).numWorkers(3).build(), "depengine.kvstore.rank",
                "depengine.kvstore.numWorkers", "=3");
        assertInvalid(() -> KVStoreSettings.builder().set(" ", "x"), "blank");
        assertThrows(NullPointerException.class, () -> KVStoreSettings.builder().set("x", null));
    }

    /**
     * Issue 39's finding: timeoutMs took any long, but the store's transport read it as an int and failed at
     * open with a bare NumberFormatException. Now the one parser's range is what the store can use: the
     * largest int is taken, one more is refused at the builder, naming the setting.
     */
    @Test
    void aTimeoutBeyondWhatTheTransportTakesIsRefusedAtTheBuilderNamingTheSetting() {
        assertEquals(Integer.MAX_VALUE, KVStoreSettings.builder().timeoutMs(Integer.MAX_VALUE).build().timeoutMs());
        assertInvalid(() -> KVStoreSettings.builder().timeoutMs(2_147_483_648L), "depengine.kvstore.timeoutMs", "='2147483648'",
                "2147483647 ms");
        assertInvalid(() -> KVStoreSettings.builder().set("timeoutMs", "30d"), "depengine.kvstore.timeoutMs", "='30d'");
        assertEquals(60_000, KVStoreSettings.builder().set("timeoutMs", "1m").build().timeoutMs(), "units are taken");
    }

    @Test
    void systemPropertiesAreReadAndTheirErrorsSayWhereTheValueCameFrom() {
        withProperties(() -> {
            System.setProperty("depengine.kvstore.numWorkers", "2");
            System.setProperty("depengine.kvstore.rank", "1");
            System.setProperty("depengine.kvstore.alphaSpecific", "kept");
            KVStoreSettings s = KVStoreSettings.fromSystemProperties();
            assertEquals(1, s.rank());
            assertEquals(2, s.numWorkers());
            assertEquals(Optional.of("kept"), s.get("alphaSpecific"), "an undeclared setting is warned about and kept");

            System.setProperty("depengine.kvstore.timeoutMs", "soon");
            assertInvalid(KVStoreSettings::fromSystemProperties, "depengine.kvstore.timeoutMs", "'soon'", "system property");
            System.clearProperty("depengine.kvstore.timeoutMs");
            System.setProperty("depengine.kvstore.rank", "2");
            assertInvalid(KVStoreSettings::fromSystemProperties, "depengine.kvstore.rank (system property)=2",
                    "depengine.kvstore.numWorkers (system property)=2");
        });
    }

    private static void withProperties(Runnable r) {
        java.util.Properties saved = (java.util.Properties) System.getProperties().clone();
        try {
            r.run();
        } finally {
            for (String k : System.getProperties().stringPropertyNames()) {
                if (k.startsWith("depengine.kvstore.") && saved.getProperty(k) == null) {
                    System.clearProperty(k);
                }
            }
        }
    }

    private static void assertInvalid(Supplier<?> call, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::get);
        for (String p : parts) {
            assertTrue(e.getMessage().contains(p), "message should contain '" + p + "': " + e.getMessage());
        }
    }
}
