package org.depengine.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class KVStoreSettingsTest {

    @Test
    void defaultsAreOneWorkerOfRankZeroEmbeddedWithTheDocumentedBounds() {
        KVStoreSettings s = KVStoreSettings.defaults();
        assertEquals(List.of(), s.members());
        assertEquals(0, s.rank());
        assertEquals(1, s.numWorkers());
        assertEquals(KVStoreSettings.DEFAULT_TIMEOUT_MS, s.timeoutMs());
        assertEquals(KVStoreSettings.Mode.EMBEDDED, s.mode());
        assertEquals("depengine", s.clusterName());
        assertEquals(5701, s.port());
        assertEquals(1 << 20, s.splitFloats());
        assertEquals(1, s.backups());
    }

    @Test
    void theBuilderSetsEverySettingAndKeepsImplementationSpecificOnes() {
        KVStoreSettings s = KVStoreSettings.builder().members("127.0.0.1:5701, 127.0.0.1:5702").numWorkers(3).rank(2)
                .timeoutMs(250).mode(KVStoreSettings.Mode.CLIENT).clusterName("job7").port(6000).splitFloats(1000)
                .backups(0).set("hazelcast.extra", "x").build();
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702"), s.members());
        assertEquals(2, s.rank());
        assertEquals(3, s.numWorkers());
        assertEquals(250, s.timeoutMs());
        assertEquals(KVStoreSettings.Mode.CLIENT, s.mode());
        assertEquals("job7", s.clusterName());
        assertEquals(6000, s.port());
        assertEquals(1000, s.splitFloats());
        assertEquals(0, s.backups());
        assertEquals(Optional.of("x"), s.get("hazelcast.extra"));
        assertEquals(Optional.of("client"), s.get("mode"));
        assertEquals(Optional.empty(), s.get("nothing"));
        assertEquals(s, s.toBuilder().build());
        assertEquals(7, s.toBuilder().set("rank", "7").numWorkers(8).build().rank());
    }

    @Test
    void invalidBuilderValuesNameThePropertyAndTheBuilder() {
        assertInvalid(() -> KVStoreSettings.builder().rank(-1), "depengine.kvstore.rank", "Builder");
        assertInvalid(() -> KVStoreSettings.builder().numWorkers(0), "depengine.kvstore.numWorkers", "Builder");
        assertInvalid(() -> KVStoreSettings.builder().timeoutMs(0), "depengine.kvstore.timeoutMs");
        assertInvalid(() -> KVStoreSettings.builder().port(70000), "depengine.kvstore.port", "65535");
        assertInvalid(() -> KVStoreSettings.builder().backups(7), "depengine.kvstore.backups");
        assertInvalid(() -> KVStoreSettings.builder().splitFloats(0), "depengine.kvstore.splitFloats");
        assertInvalid(() -> KVStoreSettings.builder().members("localhost"), "depengine.kvstore.members", "host:port");
        assertInvalid(() -> KVStoreSettings.builder().members(List.of("h:0")), "depengine.kvstore.members", "port 0");
        assertInvalid(() -> KVStoreSettings.builder().set("mode", "server"), "depengine.kvstore.mode", "embedded");
        assertInvalid(() -> KVStoreSettings.builder().clusterName(" "), "depengine.kvstore.clusterName");
        assertInvalid(() -> KVStoreSettings.builder().rank(3).numWorkers(3).build(), "depengine.kvstore.rank=3",
                "depengine.kvstore.numWorkers=3");
        assertThrows(NullPointerException.class, () -> KVStoreSettings.builder().mode(null));
        assertThrows(NullPointerException.class, () -> KVStoreSettings.builder().set("x", null));
    }

    @Test
    void systemPropertiesAreReadAndTheirErrorsSayWhereTheValueCameFrom() {
        withProperties(() -> {
            System.setProperty("depengine.kvstore.members", "10.0.0.1:5701,10.0.0.2:5701");
            System.setProperty("depengine.kvstore.numWorkers", "2");
            System.setProperty("depengine.kvstore.rank", "1");
            System.setProperty("depengine.kvstore.mode", "CLIENT");
            System.setProperty("depengine.kvstore.alphaSpecific", "kept");
            KVStoreSettings s = KVStoreSettings.fromSystemProperties();
            assertEquals(List.of("10.0.0.1:5701", "10.0.0.2:5701"), s.members());
            assertEquals(1, s.rank());
            assertEquals(2, s.numWorkers());
            assertEquals(KVStoreSettings.Mode.CLIENT, s.mode());
            assertEquals(Optional.of("kept"), s.get("alphaSpecific"));

            System.setProperty("depengine.kvstore.timeoutMs", "soon");
            assertInvalid(KVStoreSettings::fromSystemProperties, "depengine.kvstore.timeoutMs='soon'", "system property");
            System.clearProperty("depengine.kvstore.timeoutMs");
            System.setProperty("depengine.kvstore.rank", "2");
            assertInvalid(KVStoreSettings::fromSystemProperties, "rank=2 (system property)",
                    "numWorkers=2 (system property)");
        });
    }

    @Test
    void anUnknownPropertyIsKeptAndItsClosestKnownNameFound() {
        Set<String> known = new java.util.TreeSet<>(KVStoreSettings.NAMES);
        assertEquals("numWorkers", KVStoreSettings.closest("numworker", known));
        assertEquals("timeoutMs", KVStoreSettings.closest("timeout", known));
        assertEquals("members", KVStoreSettings.closest("member", known));
        withProperties(() -> {
            System.setProperty("depengine.kvstore.numworker", "4"); // warned once, not fatal
            KVStoreSettings s = KVStoreSettings.fromSystemProperties();
            assertEquals(1, s.numWorkers());
            assertEquals(Optional.of("4"), s.get("numworker"));
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
