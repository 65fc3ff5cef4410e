package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.depengine.kvstore.KVStoreSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * MultiDeviceTraining's elastic options: what they pass to the store and to the workers started on loopback,
 * and each wrong combination refused naming the option (the whole command line's form is in
 * {@code MultiDeviceTrainingTest.badInputIsRefusedWithAClearMessage}).
 */
class ElasticOptionsTest {
    @Command(name = "test")
    static final class Holder {
        @Mixin
        ElasticOptions elastic = new ElasticOptions();
    }

    private static ElasticOptions parse(String... args) {
        Holder h = new Holder();
        new CommandLine(h).parseArgs(args);
        return h.elastic;
    }

    @Test
    void theStoreAndTheWorkersGetTheElasticSettings() {
        ElasticOptions o = parse("--elastic", "--min-workers", "2", "--kill", "2@10", "--join-at", "20");
        o.checkAlone("dist_sync");
        o.check(3, 30, true, false);
        KVStoreSettings s = o.settings(KVStoreSettings.builder().build());
        assertEquals("true", s.get("elastic").orElseThrow());
        assertEquals("2", s.get("minWorkers").orElseThrow());
        assertEquals("4", s.get("maxWorkers").orElseThrow(), "one more than --workers for the joiner");
        assertTrue(s.get("join").isEmpty());
        assertEquals(List.of("--elastic", "--min-workers", "2", "--max-workers", "4"), o.workerArgs());
        assertTrue(o.acts());
        assertEquals(4, o.maxWorkers(3));

        ElasticOptions defaults = parse("--elastic");
        defaults.checkAlone("dist_sync");
        defaults.check(3, 30, true, false);
        assertEquals(List.of("--elastic", "--min-workers", "1", "--max-workers", "3"), defaults.workerArgs());
        assertFalse(defaults.acts());

        ElasticOptions joiner = parse("--elastic", "--join", "127.0.0.1:5809");
        joiner.checkAlone("dist_sync");
        joiner.check(3, 30, false, false);
        KVStoreSettings j = joiner.settings(KVStoreSettings.builder().build());
        assertEquals("true", j.get("join").orElseThrow());
        assertTrue(j.get("minWorkers").isEmpty() && j.get("maxWorkers").isEmpty(), "the job's, not the joiner's");

        ElasticOptions off = parse();
        off.checkAlone("local");
        off.check(1, 30, false, false);
        assertEquals(KVStoreSettings.builder().build(), off.settings(KVStoreSettings.builder().build()));
        assertEquals(List.of(), off.workerArgs());
    }

    @Test
    void badCombinationsAreRefusedNamingTheOption() {
        refused("--min-workers needs --elastic", "--min-workers", "2");
        refused("--kill needs --elastic", "--kill", "1@5");
        refused("--join-at needs --elastic", "--join-at", "5");
        refused("--join needs --elastic", "--join", "127.0.0.1:5809");
        refused("--kill 0@5: rank 0 is this process, which starts the others, prints and writes the trace; kill one of "
                + "ranks 1..2", "--elastic", "--kill", "0@5");
        refused("--kill 3@5: rank 3 is out of range: give one of ranks 1..2", "--elastic", "--kill", "3@5");
        refused("--kill 1@31: epoch 31 is out of range: give an integer in 1..30", "--elastic", "--kill", "1@31");
        refused("--kill '1x5' is not RANK@EPOCH, e.g. 2@10", "--elastic", "--kill", "1x5");
        refused("--kill names rank 1 twice", "--elastic", "--kill", "1@5", "--kill", "1@7");
        refused("--kill leaves 2 workers at epoch 5, fewer than --min-workers 3", "--elastic", "--min-workers", "3",
                "--kill", "1@5");
        refused("--min-workers 4 is out of range: give an integer in 1..3", "--elastic", "--min-workers", "4");
        refused("--join-at 30 is out of range: give an integer in 1..29", "--elastic", "--join-at", "30");
        refused("--max-workers 3 is below the 3 workers and the joiner of --join-at: give at least 4", "--elastic",
                "--max-workers", "3", "--join-at", "5");
        refused("--join is a joiner's own form", "--elastic", "--join", "127.0.0.1:5809", "--kill", "1@5");
        refused("--join is a joiner's own form", "--elastic", "--join", "127.0.0.1:5809", "--min-workers", "2");

        IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
                () -> parse("--elastic").checkAlone("dist_async"));
        assertTrue(type.getMessage().startsWith("--elastic needs --kvstore dist_sync"), type.getMessage());
        IllegalArgumentException machines = assertThrows(IllegalArgumentException.class, () -> {
            ElasticOptions o = parse("--elastic", "--kill", "1@5");
            o.checkAlone("dist_sync");
            o.check(3, 30, false, false);
        });
        assertTrue(machines.getMessage().startsWith("--kill needs the loopback form"), machines.getMessage());
        IllegalArgumentException checkpoints = assertThrows(IllegalArgumentException.class,
                () -> parse("--elastic").check(3, 30, true, true));
        assertTrue(checkpoints.getMessage().startsWith("--elastic does not go with --checkpoint-every or --resume"),
                checkpoints.getMessage());
        // Half at once goes on (with rank 0); more would leave a minority, cut off from the job.
        ElasticOptions half = parse("--elastic", "--kill", "1@5", "--kill", "3@5");
        half.checkAlone("dist_sync");
        half.check(4, 30, true, false);
        IllegalArgumentException minority = assertThrows(IllegalArgumentException.class, () -> {
            ElasticOptions o = parse("--elastic", "--kill", "1@5", "--kill", "2@5", "--kill", "3@5");
            o.checkAlone("dist_sync");
            o.check(5, 30, true, false);
        });
        assertTrue(minority.getMessage().contains("the survivors would be a minority of the view"), minority.getMessage());
    }

    /** With 3 workers on loopback, 30 epochs, no checkpoints. */
    private static void refused(String expected, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            ElasticOptions o = parse(args);
            o.checkAlone("dist_sync");
            o.check(3, 30, true, false);
        }, String.join(" ", args));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }
}
