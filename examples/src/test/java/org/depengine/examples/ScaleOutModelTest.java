package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The measurement behind docs/scale-out.md (opt-in: {@value #PROPERTY}{@code =true}; it takes minutes):
 * on three hosts made of network namespaces with 1 Gbit/s links ({@link HostNamespaces}),
 * <ul>
 *   <li>{@link KVStoreModelStep} with 1, 2 and 3 workers, one per host, the Hazelcast members in the
 *   workers as in {@link SeparateHostsTest}: each step's time, the TCP echo of the model's bytes between
 *   host 0 and host 1, and the bytes every link's qdisc sent during the timed steps, beside what the
 *   bytes-per-step model of docs/scale-out.md predicts for them;</li>
 *   <li>{@link MultiDeviceTraining} with {@code --hidden 1024}: one process ({@code --kvstore local}, two
 *   devices) against two workers on two hosts, rank 0's trace kept for reading the overlap.</li>
 * </ul>
 * The workers check their own results (the model step's pulled sums, the training's loss curve is
 * compared here); the times are printed and written to {@code target/scale-out/}, never asserted.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ScaleOutModelTest {
    /** The system property that turns the measurement on. */
    static final String PROPERTY = "depengine.test.scaleOut";
    private static final int HOSTS = 3;
    private static final int PORT = 5701;
    private static final int STEPS = 10;
    private static final int WARMUP = 3;
    private static final Path OUT = Path.of("target", "scale-out").toAbsolutePath();
    private static final Pattern RESULT = Pattern.compile(
            "RESULT workers=(\\d+) bytes=(\\d+) step_ms=([\\d.]+) echo_ms=([\\d.]+)");
    /** The training's profiler keeps every op of its 20 epochs (the default ring drops the oldest). */
    private static final List<String> WHOLE_TRACE = List.of("-Ddepengine.profiler.ringCapacity=262144");
    private static final Pattern EPOCH_TIME = Pattern.compile("time per epoch: ([\\d.]+) ms");

    /**
     * The harness's results are written as {@code target/scale-out/kvstore-model-step-N.md}: copied into
     * {@code benchmarks/results/sections/}, {@code benchmarks/run.sh report} puts them in RESULTS.md.
     */
    private static final String SECTION_PREFIX = "kvstore-model-step-";

    private static HostNamespaces hosts;

    @BeforeEach
    void createHosts() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean(PROPERTY), "a measurement of minutes: run it with -D" + PROPERTY
                + "=true (as root, for the network namespaces)");
        if (hosts == null) {
            hosts = HostNamespaces.create(HOSTS);
        }
        Files.createDirectories(OUT);
    }

    @AfterEach
    void stopWorkers() throws Exception {
        if (hosts != null) {
            hosts.killAll();
        }
    }

    @AfterAll
    static void removeHosts() throws Exception {
        if (hosts != null) {
            hosts.removeAll();
            hosts = null;
        }
    }

    @Test
    void modelStepOnOneTwoAndThreeHosts() throws Exception {
        StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "| workers | step (median) | TCP echo host "
                + "0↔1 | bytes a step, all links (tc) | busiest host's bytes out (tc) | allreduce bound 2(N−1)/N·M | "
                + "busiest host ÷ bound | busiest link (tc) | busiest link at the echo's rate | busbw = M/step·2(N−1)/N | "
                + "busbw ÷ the echo's rate | workers' CPU a step |%n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|%n"));
        for (int n = 1; n <= HOSTS; n++) {
            table.append(modelStep(n));
        }
        StringBuilder links = new StringBuilder();
        for (int n = 2; n <= HOSTS; n++) {
            links.append(String.format(Locale.ROOT, "- %d workers: %s", n, Files.readString(linksFile(n))));
        }
        String section = String.format(Locale.ROOT, "## KVStore model step%n%n%s%n%n%s%n%n"
                + "M = the model's bytes; P = M/4 floats. The tc columns count what each link's qdisc sent during the timed "
                + "steps, divided by the steps (with TCP/IP and Ethernet headers, about 4 %% over the payload). "
                + "See docs/scale-out.md.%n%n%s%nBytes a step by link (tc, with headers):%n%n%s", runContext(),
                "KVStoreModelStep (examples: the 50 keys of SmallCnn, 27.4 MB, pushed and pulled through dist_sync, "
                        + WARMUP + " warm-up steps, then " + STEPS + " timed), one worker per host on 1, 2 and 3 hosts "
                        + "(network namespaces, veth links with tc tbf at 1 Gbit/s each way), against a TCP echo of the "
                        + "same bytes between host 0 and host 1 in the same run.", table, links);
        Files.writeString(OUT.resolve(SECTION_PREFIX + "1.md"), section);
        System.out.print(section);
    }

    /** One run of {@link KVStoreModelStep} on hosts 0..n-1; returns its row of the table. */
    private String modelStep(int n) throws Exception {
        String job = "model-" + UUID.randomUUID().toString().substring(0, 8);
        String members = members(n);
        Process[] ranks = new Process[n];
        for (int rank = n - 1; rank >= 0; rank--) {
            List<String> args = new ArrayList<>(List.of("--members", members, "--rank", Integer.toString(rank), "--job", job,
                    "--bind", hosts.address(rank), "--steps", Integer.toString(STEPS), "--warmup",
                    Integer.toString(WARMUP)));
            if (rank == 0) {
                args.add("--marks");
            }
            List<String> cmd = ModulePathLauncher.command(List.of(), "org.depengine.examples.KVStoreModelStep",
                    args.toArray(String[]::new));
            ranks[rank] = hosts.start(rank, cmd, rank == 0 ? ProcessBuilder.Redirect.PIPE
                    : ProcessBuilder.Redirect.to(OUT.resolve("model-" + n + "-rank" + rank + ".log").toFile()));
        }
        Process rank0 = ranks[0];
        long[][] before = null;
        long[][] after = null;
        long cpuBefore = 0;
        long cpuAfter = 0;
        StringBuilder out = new StringBuilder();
        OutputStream toRank0 = rank0.getOutputStream();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(rank0.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.append(line).append('\n');
                if (line.equals("mark: steps begin") || line.equals("mark: steps end")) {
                    long[][] sent = linkBytes(n);
                    long cpu = cpuNanos(ranks);
                    if (before == null) {
                        before = sent;
                        cpuBefore = cpu;
                    } else {
                        after = sent;
                        cpuAfter = cpu;
                    }
                    toRank0.write('\n');
                    toRank0.flush();
                }
            }
        }
        Files.writeString(OUT.resolve("model-" + n + "-rank0.log"), out);
        for (int rank = 0; rank < n; rank++) {
            String log = rank == 0 ? out.toString() : Files.readString(OUT.resolve("model-" + n + "-rank" + rank + ".log"));
            assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS), "rank " + rank + " of " + n + " did not end\n" + log);
            assertEquals(0, ranks[rank].exitValue(), "rank " + rank + " of " + n + " failed\n" + log);
        }
        Matcher m = RESULT.matcher(out);
        assertTrue(m.find() && after != null, out.toString());
        long bytes = Long.parseLong(m.group(2));
        double step = Double.parseDouble(m.group(3));
        double echo = Double.parseDouble(m.group(4));
        long busiest = 0;
        long busiestHost = 0;
        long total = 0;
        StringBuilder links = new StringBuilder();
        for (int a = 0; a < n; a++) {
            long host = 0;
            for (int b = 0; b < n; b++) {
                long perStep = (after[a][b] - before[a][b]) / STEPS;
                busiest = Math.max(busiest, perStep);
                host += perStep;
                total += perStep;
                if (a != b) {
                    links.append(String.format(Locale.ROOT, " %d→%d %.1f MB;", a, b, perStep / 1e6));
                }
            }
            busiestHost = Math.max(busiestHost, host);
        }
        Files.writeString(linksFile(n), (links.length() == 0 ? "none" : links.substring(1, links.length() - 1))
                + System.lineSeparator());
        // docs/scale-out.md: with updateOn=worker a host sends the parts of every key it does not sum to their
        // reducers and the sums of its own parts to the others: the allreduce's 2(N-1)/N of M (small keys, summed
        // by every host, a little more).
        double bound = n == 1 ? 0 : 2.0 * bytes * (n - 1) / n;
        double linkRate = bytes / echo; // bytes per ms each way, as the echo measured
        double busbw = n == 1 ? 0 : bytes / step * 2.0 * (n - 1) / n; // bytes per ms
        return String.format(Locale.ROOT, "| %d | %.0f ms | %.0f ms (%.0f MB/s) | %.1f MB | %.1f MB | %.1f MB | %s | "
                + "%.1f MB | %.0f ms | %s | %s | %.0f ms |%n", n, step, echo, bytes / echo / 1e3, total / 1e6,
                busiestHost / 1e6, bound / 1e6, n == 1 ? "—" : String.format(Locale.ROOT, "%.3f", busiestHost / bound),
                busiest / 1e6, busiest / linkRate, n == 1 ? "—" : String.format(Locale.ROOT, "%.0f MB/s", busbw / 1e3),
                n == 1 ? "—" : String.format(Locale.ROOT, "%.0f %%", 100 * busbw / linkRate),
                (cpuAfter - cpuBefore) / 1e6 / STEPS);
    }

    private static Path linksFile(int workers) {
        return OUT.resolve("model-" + workers + "-links.txt");
    }

    /** The CPU time the worker processes (and what they started) have used so far. */
    private static long cpuNanos(Process[] ranks) {
        long sum = 0;
        for (Process p : ranks) {
            sum += cpu(p.toHandle());
            sum += p.descendants().mapToLong(ScaleOutModelTest::cpu).sum();
        }
        return sum;
    }

    private static long cpu(ProcessHandle h) {
        return h.info().totalCpuDuration().map(d -> d.toNanos()).orElse(0L);
    }

    @Test
    void trainingWithAWideHiddenLayerOnOneProcessAndTwoHosts() throws Exception {
        List<String> training = List.of("--hidden", "1024", "--epochs", "20");
        List<String> local = new ArrayList<>(List.of("--kvstore", "local", "--devices", "cpu:0,cpu:1", "--trace",
                OUT.resolve("training-local.trace.json").toString()));
        local.addAll(training);
        ModulePathLauncher.Result one = ModulePathLauncher.launch(WHOLE_TRACE, 300, "org.depengine.examples.MultiDeviceTraining",
                local.toArray(String[]::new));
        assertEquals(0, one.exitCode(), one.output());
        Files.writeString(OUT.resolve("training-local.log"), one.output());

        String job = "train-" + UUID.randomUUID().toString().substring(0, 8);
        Process rank0 = null;
        for (int rank = 1; rank >= 0; rank--) {
            List<String> args = new ArrayList<>(List.of("--kvstore", "dist_sync", "--members", members(2), "--rank",
                    Integer.toString(rank), "--job", job, "--bind", hosts.address(rank), "--trace",
                    OUT.resolve("training-2hosts.trace.json").toString()));
            args.addAll(training);
            List<String> cmd = ModulePathLauncher.command(WHOLE_TRACE, "org.depengine.examples.MultiDeviceTraining",
                    args.toArray(String[]::new));
            Path log = OUT.resolve("training-2hosts-rank" + rank + ".log");
            Process p = hosts.start(rank, cmd, ProcessBuilder.Redirect.to(log.toFile()));
            if (rank == 0) {
                rank0 = p;
            }
        }
        assertTrue(rank0.waitFor(300, TimeUnit.SECONDS), "rank 0 did not finish");
        String two = Files.readString(OUT.resolve("training-2hosts-rank0.log"));
        assertEquals(0, rank0.exitValue(), two);
        assertEquals(MultiDeviceTrainingTest.losses(one.output()), MultiDeviceTrainingTest.losses(two),
                "2 hosts against one process on 2 devices\n" + two);
        String summary = String.format(Locale.ROOT, "MultiDeviceTraining %s: one process (local, cpu:0,cpu:1) %s ms per "
                + "epoch; two hosts (dist_sync, 1 Gbit/s) %s ms per epoch%n", String.join(" ", training),
                epochTime(one.output()), epochTime(two));
        summary += TrainingTraceOverlap.summary(OUT.resolve("training-local.trace.json")) + System.lineSeparator()
                + TrainingTraceOverlap.summary(OUT.resolve("training-2hosts.trace.json")) + System.lineSeparator();
        Files.writeString(OUT.resolve(SECTION_PREFIX + "2.md"), String.format(Locale.ROOT,
                "### MultiDeviceTraining, one process against two hosts%n%n%s%n%n```%n%s```%n", runContext(), summary));
        System.out.print(summary);
    }

    /** When, where and on what load the run was taken, for the results. */
    private static String runContext() throws IOException {
        String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        return String.format(Locale.ROOT, "Recorded %s; %d cores; load average %s at the end (above the core count: a "
                + "loaded machine, the figures are noisy); JDK %s.", java.time.Instant.now().truncatedTo(
                java.time.temporal.ChronoUnit.SECONDS), Runtime.getRuntime().availableProcessors(), load,
                System.getProperty("java.version"));
    }

    private static String epochTime(String output) {
        Matcher m = EPOCH_TIME.matcher(output);
        assertTrue(m.find(), output);
        return m.group(1);
    }

    private static String members(int n) {
        List<String> m = new ArrayList<>();
        for (int h = 0; h < n; h++) {
            m.add(hosts.address(h) + ":" + PORT);
        }
        return String.join(",", m);
    }

    /** {@code [a][b]}: the bytes host a's qdisc toward host b has sent so far, for hosts 0..n-1. */
    private static long[][] linkBytes(int n) throws IOException, InterruptedException {
        long[][] sent = new long[n][n];
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (a != b) {
                    sent[a][b] = hosts.bytesSent(a, b);
                }
            }
        }
        return sent;
    }
}
