package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.hazelcast.membership.ElasticSettings;
import org.junit.jupiter.api.Test;

/**
 * The elastic settings ({@code docs/elastic-design.md}, section 5): their defaults, the one form of their
 * errors, elastic-only settings refused without {@code elastic=true}, and {@code join=true} refused at open
 * where joiners are not built yet (dist_async, updateOn=server). No cluster is started.
 */
class ElasticSettingsTest {
    private static final String B = "(set on KVStoreSettings.Builder)";

    @Test
    void defaultsAreNotElasticWithExactlyNumWorkers() {
        ElasticSettings e = ElasticSettings.from(settings(Map.of("numWorkers", "4")));
        assertEquals(new ElasticSettings(false, 4, 4, Duration.ofSeconds(60), Duration.ofSeconds(10)), e);
        assertEquals(e, ElasticSettings.notElastic(4));
        ElasticSettings on = ElasticSettings.from(settings(Map.of("numWorkers", "4", "elastic", "TRUE")));
        assertEquals(new ElasticSettings(true, 4, 4, Duration.ofSeconds(60), Duration.ofSeconds(10)), on,
                "minWorkers and maxWorkers default to numWorkers");
    }

    @Test
    void elasticSettingsAreReadThroughTheParser() {
        ElasticSettings e = ElasticSettings.from(settings(Map.of("numWorkers", "4", "elastic", "true", "minWorkers", "2",
                "maxWorkers", "8", "minWorkersWaitMs", "2s", "recoveryTimeoutMs", "500")));
        assertEquals(new ElasticSettings(true, 2, 8, Duration.ofSeconds(2), Duration.ofMillis(500)), e);
        assertEquals(Duration.ZERO, ElasticSettings.from(settings(Map.of("elastic", "true", "minWorkersWaitMs", "0")))
                .minWorkersWait(), "0: fail at once");
    }

    @Test
    void aBadValueIsRefusedAtBuildInTheOneForm() {
        for (Map.Entry<String, String> bad : Map.of("elastic", "yes", "minWorkers", "0", "maxWorkers", "-1",
                "minWorkersWaitMs", "soon", "recoveryTimeoutMs", "0").entrySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> settings(Map.of(bad.getKey(), bad.getValue())), bad.toString());
            assertTrue(e.getMessage().startsWith("setting depengine.kvstore." + bad.getKey() + " " + B + "='"
                    + bad.getValue() + "' is invalid: expected "), e.getMessage());
        }
    }

    @Test
    void elasticOnlySettingsWithoutElasticAreRefusedNamingElastic() {
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                () -> ElasticSettings.from(settings(Map.of("minWorkers", "1"))));
        assertEquals("setting depengine.kvstore.minWorkers " + B + "='1' is for elastic jobs only, and "
                + "depengine.kvstore.elastic (default)=false: set depengine.kvstore.elastic=true, or remove it (a job "
                + "that is not elastic runs with exactly numWorkers workers)", one.getMessage());
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class,
                () -> ElasticSettings.from(settings(Map.of("elastic", "false", "maxWorkers", "3",
                        "recoveryTimeoutMs", "5s"))));
        assertTrue(two.getMessage().startsWith("setting depengine.kvstore.maxWorkers " + B + "='3', setting "
                + "depengine.kvstore.recoveryTimeoutMs " + B + "='5s' are for elastic jobs only, and "
                + "setting depengine.kvstore.elastic " + B + "=false: "), two.getMessage());
    }

    @Test
    void minWorkersAboveNumWorkersAndMaxWorkersBelowAreRefusedNamingBoth() {
        IllegalArgumentException min = assertThrows(IllegalArgumentException.class, () -> ElasticSettings.from(
                settings(Map.of("numWorkers", "2", "elastic", "true", "minWorkers", "3"))));
        assertEquals("setting depengine.kvstore.minWorkers " + B + "=3 must be at most setting "
                + "depengine.kvstore.numWorkers " + B + "=2: the job starts with numWorkers workers, and a view below "
                + "minWorkers pauses it", min.getMessage());
        IllegalArgumentException max = assertThrows(IllegalArgumentException.class, () -> ElasticSettings.from(
                settings(Map.of("numWorkers", "3", "elastic", "true", "maxWorkers", "2"))));
        assertTrue(max.getMessage().startsWith("setting depengine.kvstore.maxWorkers " + B + "=2 must be at least "
                + "setting depengine.kvstore.numWorkers " + B + "=3"), max.getMessage());
        IllegalArgumentException byDefault = assertThrows(IllegalArgumentException.class, () -> ElasticSettings.from(
                settings(Map.of("elastic", "true", "minWorkers", "2"))));
        assertTrue(byDefault.getMessage().contains("must be at most depengine.kvstore.numWorkers (default)=1"),
                byDefault.getMessage());
    }

    /**
     * A joiner ({@code join=true}): elastic only; no rank and no checkpoint of its own; numWorkers may be left out,
     * and then minWorkers and maxWorkers are checked only against each other (the job's are learned at open).
     */
    @Test
    void joinIsForElasticJobsAndTakesNoRankNorCheckpoint() {
        IllegalArgumentException notElastic = assertThrows(IllegalArgumentException.class,
                () -> ElasticSettings.from(settings(Map.of("join", "true"))));
        assertTrue(notElastic.getMessage().startsWith("setting depengine.kvstore.join " + B + "='true' is for elastic "
                + "jobs only"), notElastic.getMessage());
        for (Map.Entry<String, String> own : Map.of("rank", "0", "resume", "/tmp/checkpoint.bin").entrySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ElasticSettings.from(
                    settings(Map.of("elastic", "true", "join", "true", own.getKey(), own.getValue()))));
            assertEquals("setting depengine.kvstore." + own.getKey() + " " + B + "='" + own.getValue() + "' is refused "
                    + "with setting depengine.kvstore.join " + B + "=true: a joiner takes its rank from the view that "
                    + "admits it and its keys' state from the job's workers; remove depengine.kvstore." + own.getKey(),
                    e.getMessage());
        }
        ElasticSettings joiner = ElasticSettings.from(settings(Map.of("elastic", "true", "join", "true", "minWorkers", "2",
                "maxWorkers", "5")));
        assertEquals(2, joiner.minWorkers(), "numWorkers left out: not checked against the default of 1");
        assertEquals(5, joiner.maxWorkers());
        assertTrue(ElasticSettings.joins(settings(Map.of("elastic", "true", "join", "true"))));
        IllegalArgumentException crossed = assertThrows(IllegalArgumentException.class, () -> ElasticSettings.from(
                settings(Map.of("elastic", "true", "join", "true", "minWorkers", "4", "maxWorkers", "3"))));
        assertTrue(crossed.getMessage().contains("must be at most"), crossed.getMessage());
    }

    /**
     * Where joiners are not built yet (dist_async, updateOn=server): join=true is refused before any cluster is
     * joined; elastic=true alone is not (those modes go on after a loss, ElasticServerTest), and a setting the
     * parser refuses is named first.
     */
    @Test
    void joinIsRefusedAtOpenWhereJoinersAreNotBuiltYet() {
        KVStoreSettings asyncJoiner = settings(Map.of("elastic", "true", "join", "true", "minWorkers", "1"));
        IllegalArgumentException async = assertThrows(IllegalArgumentException.class,
                () -> ElasticSettings.refuseElasticAtOpen(asyncJoiner, true, HazelcastSettings.UpdateOn.SERVER));
        assertEquals("setting depengine.kvstore.join " + B + "='true' needs dist_sync with depengine.kvstore.updateOn=worker "
                + "(the default): admitting a worker into a running dist_async job is not built yet (issue 40); its elastic "
                + "jobs go on without a lost worker but admit none: leave join unset and start a new job from a checkpoint "
                + "(depengine.kvstore.resume) with more workers, or use dist_sync with updateOn=worker", async.getMessage());
        try (Engine engine = Engine.create("perdevice")) {
            IllegalArgumentException server = assertThrows(IllegalArgumentException.class, () -> KVStore.open(engine,
                    "dist_sync", settings(Map.of("elastic", "true", "join", "true", "updateOn", "server"))).close());
            assertTrue(server.getMessage().contains("admitting a worker into a running updateOn=server job is not built "
                    + "yet"), server.getMessage());
            IllegalArgumentException asyncAtOpen = assertThrows(IllegalArgumentException.class, () -> KVStore.open(engine,
                    "dist_async", asyncJoiner).close());
            assertEquals(async.getMessage(), asyncAtOpen.getMessage(), "refused by open, before any cluster is joined");
            IllegalArgumentException invalid = assertThrows(IllegalArgumentException.class, () -> KVStore.open(engine,
                    "dist_async", settings(Map.of("numWorkers", "2", "minWorkers", "1"))).close());
            assertTrue(invalid.getMessage().contains("for elastic jobs only"), invalid.getMessage());
        }
        for (boolean asyncMode : new boolean[] {false, true}) { // elastic=true alone opens in every mode
            ElasticSettings.refuseElasticAtOpen(settings(Map.of("numWorkers", "2", "elastic", "true")), asyncMode,
                    HazelcastSettings.UpdateOn.SERVER);
        }
        ElasticSettings.refuseElasticAtOpen(asyncJoiner, false, HazelcastSettings.UpdateOn.WORKER);
        assertFalse(ElasticSettings.from(settings(Map.of("numWorkers", "2"))).elastic());
    }

    private static KVStoreSettings settings(Map<String, String> p) {
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        p.forEach(b::set);
        return b.build();
    }
}
