package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * MultiDeviceTraining's per-machine command on three hosts that are separate as far as TCP goes: three
 * network namespaces joined by 1 Gbit/s veth links ({@link HostNamespaces}), one worker JVM in each,
 * started with {@code --members} (the three hosts' addresses), its own {@code --rank} and one
 * {@code --job}. With {@code dist_sync} they print the loss curve of one process training on three
 * devices; when one host's worker is killed mid-training, or the host is cut off (its links down), the
 * other two fail within seconds with an error naming the lost rank, long before the call timeout, and a
 * cut-off worker fails as soon, naming the ranks it lost contact with.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SeparateHostsTest {
    private static final String MAIN = "org.depengine.examples.MultiDeviceTraining";
    private static final int HOSTS = 3;
    private static final int PORT = 5701;
    /** Each worker's call timeout: only the membership listener, not a timeout, can end a survivor sooner. */
    private static final long CALL_TIMEOUT_MS = 120_000;
    /** How long after the loss the survivors may take to fail ("within seconds", with room for a loaded CI machine). */
    private static final long LOSS_SECONDS = 30;
    private static final Pattern SECOND_EPOCH = Pattern.compile("epoch +2/\\d+ ");
    private static final Pattern LOST_RANK = Pattern.compile("\\brank " + (HOSTS - 1) + "\\b");
    /** What the cut-off worker's error names: the ranks on the other side. */
    private static final Pattern CUT_OFF_FROM = Pattern.compile("\\brank [01]\\b");

    private static HostNamespaces hosts;

    @TempDir
    Path dir;

    /**
     * The hosts, made by the first test and shared until a test cuts a link (it removes them). From here,
     * not {@code @BeforeAll}, a skip is reported on each test with its message.
     */
    @BeforeEach
    void createHosts() throws Exception {
        if (hosts == null) {
            hosts = HostNamespaces.create(HOSTS);
        }
    }

    @AfterAll
    static void removeHosts() throws Exception {
        if (hosts != null) {
            hosts.removeAll();
            hosts = null;
        }
    }

    /** A test's workers end with it, even when it fails: the next test's workers use the same hosts and ports. */
    @AfterEach
    void stopWorkers() throws Exception {
        if (hosts != null) {
            hosts.killAll();
        }
    }

    @Test
    void threeHostsTrainTheLossCurveOfOneProcessOnThreeDevices() throws Exception {
        ModulePathLauncher.Result one = ModulePathLauncher.launch(List.of(), MAIN, "--devices", "cpu:0,cpu:1,cpu:2",
                "--kvstore", "local", "--epochs", "10", "--trace", "off");
        assertEquals(0, one.exitCode(), one.output());
        List<Double> expected = MultiDeviceTrainingTest.losses(one.output());
        assertEquals(10, expected.size(), one.output());

        Workers w = startWorkers(List.of(), "--epochs", "10");
        String out = w.rank0.text.get(240, TimeUnit.SECONDS);
        for (int r = 0; r < HOSTS; r++) {
            Process p = w.processes.get(r);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "rank " + r + " did not finish\n" + outputs(w));
            assertEquals(0, p.exitValue(), "rank " + r + " failed\n" + outputs(w));
        }
        assertTrue(out.contains("devices cpu:0; host ops (shuffles, metrics) on cpu:1; kvstore dist_sync (3 workers"), out);
        assertEquals(expected, MultiDeviceTrainingTest.losses(out), "3 hosts against one process on 3 devices\n" + out);
        // The gradients and weights went over the rate-limited links, both ways between every two hosts.
        for (int a = 0; a < HOSTS; a++) {
            for (int b = 0; b < HOSTS; b++) {
                if (a != b) {
                    long sent = hosts.bytesSent(a, b);
                    assertTrue(sent > 100_000, "host " + a + " sent only " + sent + " bytes to host " + b);
                }
            }
        }
    }

    @Test
    void whenOneHostsWorkerIsKilledTheOthersFailWithinSecondsNamingItsRank() throws Exception {
        // The kill closes the lost worker's connections at once (its kernel resets them).
        Workers w = startTrainingAndLose(HostNamespaces::kill);
        for (int r = 0; r < HOSTS - 1; r++) {
            assertFailsNaming(w, r, LOST_RANK, "rank " + (HOSTS - 1) + ", killed");
        }
    }

    @Test
    void whenOneHostIsCutOffTheOthersFailWithinSecondsNamingItsRank() throws Exception {
        // Its links go down: no reset, no close, the packets just stop; the members notice from missed heartbeats.
        try {
            Workers w = startTrainingAndLose(worker -> hosts.cutOff(HOSTS - 1));
            for (int r = 0; r < HOSTS - 1; r++) {
                assertFailsNaming(w, r, LOST_RANK, "rank " + (HOSTS - 1) + ", cut off");
            }
            // The cut-off worker's side of the split holds only part of the keys: it fails too, naming the others.
            assertFailsNaming(w, HOSTS - 1, CUT_OFF_FROM, "contact with ranks 0 and 1 (its own host cut off)");
        } finally {
            hosts.removeAll(); // the next test gets hosts with every link up
            hosts = null;
        }
    }

    /** What a test does to the last rank's host. */
    @FunctionalInterface
    private interface Loss {
        void inflict(Process lastRank) throws Exception;
    }

    /**
     * Starts the three workers on 30 epochs and, once rank 0 has printed its second, inflicts {@code loss}
     * on the last rank. (A worker pushes every epoch's ops up front; once it knows a rank is lost, those
     * still queued fail without calls of their own.)
     */
    private Workers startTrainingAndLose(Loss loss) throws Exception {
        Workers w = startWorkers(List.of("-Ddepengine.kvstore.timeoutMs=" + CALL_TIMEOUT_MS), "--epochs", "30");
        w.rank0.seen.get(240, TimeUnit.SECONDS);
        loss.inflict(w.processes.get(HOSTS - 1));
        w.lostAt = System.nanoTime();
        return w;
    }

    /** Rank {@code r} exits with an error that matches {@code naming}, within {@link #LOSS_SECONDS} of the loss. */
    private void assertFailsNaming(Workers w, int r, Pattern naming, String what) throws Exception {
        Process p = w.processes.get(r);
        long left = LOSS_SECONDS * 1_000_000_000L - (System.nanoTime() - w.lostAt);
        if (!p.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
            throw new AssertionError("rank " + r + " still runs " + LOSS_SECONDS + " s after the loss of " + what
                    + "\n" + output(w, r));
        }
        String text = output(w, r);
        String error = text.lines().filter(l -> l.startsWith("MultiDeviceTraining: ")).reduce((a, b) -> b).orElse("");
        System.out.printf(Locale.ROOT, "rank %d exited with status %d %.1f s after the loss of %s: %s%n", r, p.exitValue(),
                (System.nanoTime() - w.lostAt) / 1e9, what, error);
        assertNotEquals(0, p.exitValue(), "rank " + r + " exited normally after the loss of " + what + "\n" + text);
        assertFalse(text.contains("final accuracy"), text);
        assertTrue(naming.matcher(error).find(), "rank " + r + "'s error does not name " + what + ": '" + error + "'\n"
                + text);
    }

    /** The worker processes, by rank, rank 0's output, and when a test inflicted its loss. */
    private static final class Workers {
        final List<Process> processes;
        final OutputLines rank0;
        long lostAt;

        Workers(List<Process> processes, OutputLines rank0) {
            this.processes = processes;
            this.rank0 = rank0;
        }
    }

    /** Starts rank r on host r for every r, highest first; rank 0's output is read as it comes, the others' go to files. */
    private Workers startWorkers(List<String> jvmOptions, String... training) throws IOException {
        String job = "hosts-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> members = new ArrayList<>();
        for (int h = 0; h < HOSTS; h++) {
            members.add(hosts.address(h) + ":" + PORT);
        }
        Process[] started = new Process[HOSTS];
        for (int rank = HOSTS - 1; rank >= 0; rank--) {
            List<String> args = new ArrayList<>(List.of("--kvstore", "dist_sync", "--trace", "off",
                    "--members", String.join(",", members), "--rank", Integer.toString(rank), "--job", job,
                    "--bind", hosts.address(rank)));
            args.addAll(List.of(training));
            List<String> cmd = ModulePathLauncher.command(jvmOptions, MAIN, args.toArray(String[]::new));
            started[rank] = hosts.start(rank, cmd, rank == 0 ? ProcessBuilder.Redirect.PIPE
                    : ProcessBuilder.Redirect.to(logFile(rank).toFile()));
        }
        return new Workers(List.of(started), new OutputLines(started[0], SECOND_EPOCH, "rank 0"));
    }

    /** What every rank printed, for a failure's message. */
    private String outputs(Workers w) throws IOException, InterruptedException, ExecutionException {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < HOSTS; r++) {
            sb.append("--- rank ").append(r).append(":\n").append(output(w, r));
        }
        return sb.toString();
    }

    /** What rank {@code r} printed so far (rank 0: until its output ends, at most a few seconds after it exits). */
    private String output(Workers w, int r) throws IOException, InterruptedException, ExecutionException {
        if (r != 0) {
            return Files.readString(logFile(r));
        }
        try {
            return w.rank0.text.get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            return w.rank0.sofar + "(output still open)";
        }
    }

    private Path logFile(int rank) {
        return dir.resolve("rank" + rank + ".log");
    }

}
