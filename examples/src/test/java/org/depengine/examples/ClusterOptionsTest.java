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
 * MultiDeviceTraining's worker options: the per-machine form gives every worker the same store (from
 * {@code --job}) and its own rank, port and address; each wrong combination is refused naming the option.
 * The addresses other than 127.0.0.1 are in this test's own 10.213.250.0/24 and are never contacted.
 */
class ClusterOptionsTest {
    private static final String MEMBERS = "127.0.0.1:5801,10.213.250.2:5802,10.213.250.3:5803";

    @Command(name = "test")
    static final class Holder {
        @Mixin
        ClusterOptions cluster = new ClusterOptions();
    }

    private static ClusterOptions parse(String... args) {
        Holder h = new Holder();
        new CommandLine(h).parseArgs(args);
        return h.cluster;
    }

    @Test
    void thePerMachineFormGivesEveryWorkerTheSameStoreAndItsOwnRankPortAndAddress() {
        ClusterOptions rank0 = parse("--members", MEMBERS, "--rank", "0", "--job", "job-42");
        assertEquals(3, rank0.check("dist_sync"));
        assertFalse(rank0.startsWorkers(3), "the per-machine form starts no other JVM");
        KVStoreSettings s0 = rank0.storeSettings();
        assertEquals("127.0.0.1:5801,10.213.250.2:5802,10.213.250.3:5803", s0.get("members").orElseThrow());
        assertEquals(0, s0.rank());
        assertEquals(3, s0.numWorkers());
        assertEquals("5801", s0.get("port").orElseThrow());
        assertEquals("127.0.0.1", s0.get("bind").orElseThrow(), "by default the worker's own address in --members");

        // Rank 1's own address is not on this machine; with --bind it listens on one that is.
        ClusterOptions rank1 = parse("--members", MEMBERS, "--rank", "1", "--job", "job-42", "--bind", "127.0.0.1");
        assertEquals(3, rank1.check("dist_async"));
        KVStoreSettings s1 = rank1.storeSettings();
        assertEquals(1, s1.rank());
        assertEquals("5802", s1.get("port").orElseThrow());
        for (KVStoreSettings s : List.of(s0, s1)) {
            assertEquals("job-42", s.get(ClusterOptions.JOB_SETTING).orElseThrow(), "the store every worker opens");
            assertEquals("job-42", s.get("clusterName").orElseThrow());
        }
    }

    @Test
    void theLoopbackFormStartsTheOthersWithThePerMachineOptions() {
        ClusterOptions c = parse("--workers", "3");
        assertEquals(3, c.check("dist_sync"));
        assertTrue(c.startsWorkers(3));
        assertEquals("fresh", c.placeOnLoopback(List.of(6001, 6002, 6003), "fresh"));
        assertEquals(List.of("--members", "127.0.0.1:6001,127.0.0.1:6002,127.0.0.1:6003", "--rank", "2", "--job", "fresh"),
                c.workerArgs(2));
        assertEquals("fresh", c.storeSettings().get(ClusterOptions.JOB_SETTING).orElseThrow());
        assertEquals("given", parse("--workers", "2", "--job", "given").placeOnLoopback(List.of(1, 2), "fresh"));
    }

    /** A worker joining a running elastic job: the job's members and id, its own address, no rank and no count. */
    @Test
    void aJoinerGivesTheJobsMembersAndItsOwnAddressAndNoRank() {
        ClusterOptions j = parse("--members", "127.0.0.1:5801,127.0.0.1:5802", "--job", "job-42");
        assertEquals(2, j.check("dist_sync", "127.0.0.1:5809"), "the workers the job started with");
        assertTrue(j.joining());
        assertEquals(-1, j.rank(), "a joiner's rank comes from the job's view");
        assertFalse(j.startsWorkers(2));
        KVStoreSettings s = j.storeSettings();
        assertEquals("127.0.0.1:5801,127.0.0.1:5802", s.get("members").orElseThrow());
        assertEquals("5809", s.get("port").orElseThrow());
        assertEquals("job-42", s.get(ClusterOptions.JOB_SETTING).orElseThrow());
        assertEquals("127.0.0.1", s.get("bind").orElseThrow());
        assertTrue(s.get("rank").isEmpty() && s.get("numWorkers").isEmpty(), s.toString());

        ClusterOptions loopback = parse("--workers", "2");
        loopback.check("dist_sync");
        loopback.placeOnLoopback(List.of(6001, 6002), "fresh");
        assertEquals(List.of("--members", "127.0.0.1:6001,127.0.0.1:6002", "--job", "fresh", "--join", "127.0.0.1:6009"),
                loopback.joinerArgs("127.0.0.1:6009"));

        refusedJoin("--join takes no --rank", "--members", MEMBERS, "--job", "j", "--rank", "0");
        refusedJoin("--join needs --members, the running job's workers", "--job", "j");
        refusedJoin("--join needs --members, the running job's workers", "--members", MEMBERS);
        refusedJoin("--join takes no --workers", "--members", MEMBERS, "--job", "j", "--workers", "3");
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> parse("--members", MEMBERS, "--job", "j").check("dist_sync", "127.0.0.1:5801"));
        assertTrue(twice.getMessage().contains("--join 127.0.0.1:5801 is in --members"), twice.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> parse("--members", MEMBERS, "--job", "j").check("dist_sync", "127.0.0.1"));
        assertTrue(bad.getMessage().contains("--join '127.0.0.1': give one host:port"), bad.getMessage());
    }

    private static void refusedJoin(String expected, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse(args).check("dist_sync", "127.0.0.1:5809"), String.join(" ", args));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }

    @Test
    void badCombinationsAreRefusedNamingTheOption() {
        refused("dist_sync", "--rank 3 is out of range: give an integer in 0..2 (--members lists 3 workers)",
                "--members", MEMBERS, "--rank", "3", "--job", "j");
        refused("dist_sync", "--members needs --rank R, this worker's place in the list (0..2)",
                "--members", MEMBERS, "--job", "j");
        refused("dist_sync", "--members needs --job ID, the same on every worker", "--members", MEMBERS, "--rank", "0");
        refused("dist_sync", "--job 'a b': give 1 to 64 letters, digits", "--members", MEMBERS, "--rank", "0", "--job", "a b");
        refused("dist_sync", "--workers 4 but --members lists 3 addresses",
                "--members", MEMBERS, "--workers", "4", "--rank", "0", "--job", "j");
        refused("dist_sync", "--rank needs --members", "--rank", "1");
        refused("dist_sync", "--bind needs --members", "--bind", "127.0.0.1");
        refused("local", "--members needs --kvstore dist_sync or dist_async", "--members", MEMBERS, "--rank", "0", "--job", "j");
        refused("local", "--workers 2 needs --kvstore dist_sync or dist_async", "--workers", "2");
        refused("dist_sync", "--members entry '10.213.250.2' is not host:port",
                "--members", "127.0.0.1:5801,10.213.250.2", "--rank", "0", "--job", "j");
        refused("dist_sync", "--members entry '127.0.0.1:70000': the port '70000' is not an integer in 1..65535",
                "--members", "127.0.0.1:70000", "--rank", "0", "--job", "j");
        refused("dist_sync", "--members lists 127.0.0.1:5801 twice",
                "--members", "127.0.0.1:5801,127.0.0.1:5801", "--rank", "0", "--job", "j");
        refused("dist_sync", "--members gives rank 1 the address 10.213.250.2:5802, which is not an address of this "
                + "machine", "--members", MEMBERS, "--rank", "1", "--job", "j");
        refused("dist_sync", "--bind 10.213.250.9 is not an address of this machine",
                "--members", MEMBERS, "--rank", "0", "--job", "j", "--bind", "10.213.250.9");
    }

    private static void refused(String kvstoreType, String expected, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(args).check(kvstoreType),
                String.join(" ", args));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }
}
