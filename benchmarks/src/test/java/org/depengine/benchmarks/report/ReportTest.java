package org.depengine.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report from hand-made JMH results: figures, ratios and target verdicts. */
class ReportTest {
    private static String result(String benchmark, String params, double microsPerRun) {
        return String.format(Locale.ROOT, "{\"benchmark\": \"org.depengine.benchmarks.%s\", \"mode\": \"avgt\", "
                + "\"forks\": 1, \"warmupIterations\": 1, \"warmupTime\": \"1 s\", \"measurementIterations\": 3, "
                + "\"measurementTime\": \"500 ms\", \"params\": {%s}, \"primaryMetric\": {\"score\": %f, "
                + "\"scoreError\": \"NaN\", \"scorePercentiles\": {\"0.0\": %f, \"50.0\": %f, \"100.0\": %f}, "
                + "\"scoreUnit\": \"us/op\"}, \"secondaryMetrics\": {}}",
                benchmark, params, microsPerRun * 1.1, microsPerRun, microsPerRun, microsPerRun);
    }

    /** A result with per-fork iterations (JMH's rawData), for the fork-agreement check. */
    private static String withForks(String benchmark, String params, double microsPerRun, double[][] forks) {
        StringBuilder raw = new StringBuilder("[");
        for (double[] f : forks) {
            raw.append(raw.length() > 1 ? "," : "").append(java.util.Arrays.toString(f));
        }
        raw.append(']');
        String r = result(benchmark, params, microsPerRun);
        return r.replace("\"scoreUnit\": \"us/op\"}", "\"scoreUnit\": \"us/op\", \"rawData\": " + raw + "}");
    }

    /** As {@link #withForks}, with each fork's round trip per iteration (HostPlacementProfiler's result). */
    private static String placed(String benchmark, String params, double microsPerRun, double[][] forks,
                                 double[][] roundTrips) {
        StringBuilder raw = new StringBuilder("[");
        for (double[] f : roundTrips) {
            raw.append(raw.length() > 1 ? "," : "").append(java.util.Arrays.toString(f));
        }
        raw.append(']');
        return withForks(benchmark, params, microsPerRun, forks).replace("\"secondaryMetrics\": {}",
                "\"secondaryMetrics\": {\"" + HostPlacementProfiler.LABEL + "\": {\"score\": 1, \"scoreUnit\": \"ns\", "
                        + "\"rawData\": " + raw + "}}");
    }

    private static void write(Path dir, String name, List<String> results) throws Exception {
        Files.writeString(dir.resolve(name + ".json"), "[" + String.join(",\n", results) + "]", StandardCharsets.UTF_8);
        Properties p = MachineInfo.collect("quick");
        p.setProperty(MachineInfo.CORES, "2");
        p.setProperty(MachineInfo.CPU, "Test CPU 9000");
        p.setProperty(MachineInfo.ROUND_TRIP, "123");
        p.setProperty(MachineInfo.FORK_JVM_ARGS, "-Xms9g -Xmx9g");
        try (var out = Files.newOutputStream(dir.resolve(name + ".properties"))) {
            p.store(out, null);
        }
    }

    @Test
    void targetsAreJudgedFromTheSameRun(@TempDir Path dir) throws Exception {
        List<String> r = new ArrayList<>();
        int chain = 1 << 16;
        r.add(result("LinearChain.baseline", "\"baseline\": \"serial\"", chain * 0.005));
        r.add(result("LinearChain.engine", "\"engine\": \"perdevice\"", chain * 0.100));
        r.add(withForks("LinearChain.engine", "\"engine\": \"pooled\"", chain * 0.200,
                new double[][] {{chain * 0.2, chain * 0.21}, {chain * 0.5, chain * 0.5}}));
        r.add(result("LinearChain.bulk", "\"bulkEngine\": \"perdevice+bulk16\"", chain * 0.030));
        r.add(result("LinearChain.baseline", "\"baseline\": \"cf\"", chain * 0.120));
        r.add(result("Independent.engine", "\"engine\": \"perdevice\"", 1000));
        r.add(result("Independent.baseline", "\"baseline\": \"cf\"", 800));
        // Metg: serial 4 ms per run on 2 cores, so T_ideal = 2 ms; efficiency 0.25 at 500 ns, 1.0 at 2000 ns
        for (int g : new int[] {500, 2000}) {
            r.add(result("Metg.baseline", "\"grainNanos\": \"" + g + "\", \"baseline\": \"serial\"", 4000));
        }
        r.add(result("Metg.engine", "\"grainNanos\": \"500\", \"engine\": \"perdevice\"", 8000));
        r.add(result("Metg.engine", "\"grainNanos\": \"2000\", \"engine\": \"perdevice\"", 2000));
        r.add(result("RandomDag.baseline", "\"shape\": \"mxnet\", \"baseline\": \"serial\"", 500));
        r.add(result("RandomDag.baseline", "\"shape\": \"mxnet\", \"baseline\": \"cf\"", 5000));
        r.add(result("RandomDag.engine", "\"shape\": \"mxnet\", \"engine\": \"perdevice\", \"profiling\": \"off\"", 2000));
        r.add(result("RandomDag.engine", "\"shape\": \"mxnet\", \"engine\": \"perdevice\", \"profiling\": \"on\"", 3000));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"cpu\", \"baseline\": \"copyLane\"", 3200));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"cpu\", \"baseline\": \"computeLane\"", 3300));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"cpu\", \"baseline\": \"serial\"", 6500));
        r.add(result("ComputeCopyOverlap.engine", "\"device\": \"cpu\", \"engine\": \"perdevice\"", 3500));
        r.add(result("CpuParallel.baseline", "\"grainMicros\": \"100\", \"baseline\": \"serial\"", 10_000));
        r.add(result("CpuParallel.engine", "\"grainMicros\": \"100\", \"engine\": \"perdevice\"", 5_100));
        r.add(result("PushCost.pushEngine", "\"ops\": \"independent\", \"engine\": \"perdevice\"", 0.25));
        r.add(result("PushCost.pushBaseline", "\"ops\": \"independent\", \"baseline\": \"fjp\"", 0.05));
        write(dir, "quick-jdk17", r);
        write(dir, "full-jdk25", List.of(result("LinearChain.engine", "\"engine\": \"perdevice\"", chain * 0.3)));

        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);

        assertTrue(md.indexOf("## quick · JDK 17") < md.indexOf("## full · JDK 25"), md);
        assertTrue(md.contains("2 cores, Test CPU 9000"), md);
        assertTrue(md.contains("iterations/µs; core-to-core round trip 123 ns"), md);
        assertTrue(md.contains("- Every fork's JVM: `-Xms9g -Xmx9g`; long-lived state tenured"), md);
        assertTrue(md.contains("| LinearChain ≤ 185 ns/op | perdevice | 100 ns/op | met |"), md);
        assertTrue(md.contains("| LinearChain ≤ 185 ns/op | pooled | 200 ns/op | **missed** |"), md);
        assertTrue(md.contains("| LinearChain ≤ 185 ns/op | perdevice | 300 ns/op | **missed** |"), md); // JDK 25 section
        assertTrue(md.contains("| LinearChain ≤ 1.00× CompletableFuture | perdevice | 6.55 ms vs cf 7.86 ms per run: 0.83× | met |"), md);
        assertTrue(md.contains("| LinearChain with bulk(16) ≤ 40 ns/op | perdevice | 30.0 ns/op | met |"), md);
        assertTrue(md.contains("| LinearChain with bulk(16) ≤ 40 ns/op | pooled | – | no data |"), md);
        assertTrue(md.contains("| Independent ≤ 1.00× CompletableFuture | perdevice | 1.00 ms vs cf 800.0 µs per run: 1.25× | **missed** |"), md);
        assertTrue(md.contains("| RandomDag mxnet ≤ 330 ns/op | perdevice | 200 ns/op | met |"), md);
        assertTrue(md.contains("| RandomDag mxnet ≤ 0.25× CompletableFuture | perdevice | 2.00 ms vs cf 5.00 ms per run: 0.40× | **missed** |"), md);
        assertTrue(md.contains("| RandomDag mxnet: profiler on ≤ 1.5× per op | perdevice | 300 ns/op on vs 200 ns/op off: 1.50× | met |"), md);
        assertTrue(md.contains("| ComputeCopyOverlap (cpu): ≥ 0.9 of ideal (as before) | perdevice | 0.94 of ideal"), md);
        assertTrue(md.contains("| CpuParallel G=100 µs: speed-up ≥ 1.9× (as before) | perdevice | speed-up 1.96×"), md);
        assertTrue(md.contains("| RandomDag wide ≤ 260 ns/op | perdevice | – | no data |"), md);
        // efficiency 0.25 at 500 ns and 1.0 at 2000 ns: log-linear crossing at 500 × 4^(1/3) = 794 ns
        assertTrue(md.contains("| METG (op length at 50 % efficiency) reported | perdevice | 794 ns | reported |"), md);
        assertTrue(md.contains("METG (op length at which efficiency crosses 50 %, interpolated): perdevice 794 ns."), md);
        assertTrue(md.contains("| forks agree within 1.5× on every workload | pooled | worst: pooled on LinearChain, "
                + "slowest fork ÷ fastest 2.44× | **missed** |"), md);
        assertTrue(md.contains("| forks agree within 1.5× on every workload | perdevice | – | no data |"), md);
        // engine row of RandomDag mxnet: 200 ns/op, 150 overhead, 0.25× speed-up, 2.50× cf
        assertTrue(md.contains("| perdevice | 2.00 ms | – | 200 | 150 | 0.25× | 0.25 | 2.50× |"), md);
        assertTrue(md.contains("| perdevice | 250 | – | 0.20× |"), md); // PushCost vs fjp
        assertTrue(md.contains("METG"), md);
    }

    @Test
    void forksAndBaselinesAtAnotherHostPlacementAreNotJudgedAsTheEngines(@TempDir Path dir) throws Exception {
        int chain = 1 << 16;
        double[][] slowSlow = {{500, 510}, {490, 520}};
        List<String> r = new ArrayList<>();
        r.add(result("LinearChain.baseline", "\"baseline\": \"serial\"", chain * 0.005));
        // cf ran at the slow placement; perdevice's forks one at each, 2.5× apart; pooled's both slow, 1.6× apart
        r.add(placed("LinearChain.baseline", "\"baseline\": \"cf\"", chain * 0.120,
                new double[][] {{chain * 0.12}, {chain * 0.12}}, slowSlow));
        r.add(placed("LinearChain.engine", "\"engine\": \"perdevice\"", chain * 0.100,
                new double[][] {{chain * 0.1, chain * 0.1}, {chain * 0.25, chain * 0.25}}, new double[][] {{70, 72}, {500, 505}}));
        r.add(placed("LinearChain.engine", "\"engine\": \"pooled\"", chain * 0.200,
                new double[][] {{chain * 0.2}, {chain * 0.32}}, slowSlow));
        // Independent: perdevice both forks fast, cf slow: the ratio compares two machines
        r.add(placed("Independent.engine", "\"engine\": \"perdevice\"", 500,
                new double[][] {{500}, {500}}, new double[][] {{70, 70}, {68, 75}}));
        r.add(placed("Independent.engine", "\"engine\": \"pooled\"", 1000,
                new double[][] {{1000}, {1000}}, slowSlow));
        r.add(placed("Independent.baseline", "\"baseline\": \"cf\"", 800,
                new double[][] {{800}, {800}}, slowSlow));
        // RandomDag mxnet: the profiler-on run at the slow placement, the run without it at the fast one
        r.add(placed("RandomDag.engine", "\"shape\": \"mxnet\", \"engine\": \"perdevice\", \"profiling\": \"off\"", 6000,
                new double[][] {{6000}, {6000}}, new double[][] {{72}, {74}}));
        r.add(placed("RandomDag.engine", "\"shape\": \"mxnet\", \"engine\": \"perdevice\", \"profiling\": \"on\"", 21000,
                new double[][] {{21000}, {21000}}, slowSlow));
        write(dir, "targets-jdk17", r);

        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);

        assertTrue(md.contains("| RandomDag mxnet: profiler on ≤ 1.5× per op | perdevice | 2,100 ns/op on vs 600 ns/op off: 3.50×; "
                + "but on ran at a core round trip of 505 ns, off at 73 ns | not comparable (host placement) |  |"), md);
        assertTrue(md.contains("- Core-to-core round trip around the measured iterations (benchmarks/README.md, "
                + "\"Host placement\"): forks' medians 70–505 ns; 1 of 8 results had forks at different host placements "
                + "(over 2.00× apart)"), md);
        // perdevice's only two-fork spread is across placements: not judged, and named
        assertTrue(md.contains("| forks agree within 1.5× on every workload | perdevice | worst: perdevice on RandomDag {shape=mxnet}, "
                + "slowest fork ÷ fastest 1.00×; not judged: 1 result whose forks ran at different host placements "
                + "(widest: perdevice on LinearChain 2.50×, forks at 71 / 503 ns) | met |"), md);
        // pooled's forks ran at one placement: its 1.6× is a mode flip
        assertTrue(md.contains("| forks agree within 1.5× on every workload | pooled | worst: pooled on LinearChain, "
                + "slowest fork ÷ fastest 1.60× | **missed** |"), md);
        assertTrue(md.contains("| Independent ≤ 1.00× CompletableFuture | perdevice | 500.0 µs vs cf 800.0 µs per run: 0.63×; "
                + "but perdevice ran at a core round trip of 71 ns, cf at 505 ns | not comparable (host placement) |  |"), md);
        assertTrue(md.contains("| Independent ≤ 1.00× CompletableFuture | pooled | 1.00 ms vs cf 800.0 µs per run: 1.25× | **missed** |"), md);
        // the workload table shows each contender's round trip, each fork's where they differ
        assertTrue(md.contains("| perdevice | 6.55 ms | – | 100 | 95.0 | 0.05× | 0.05 | 1.20× | 71 / 503 |"), md);
        assertTrue(md.contains("| cf | 7.86 ms | – | 120 | 115 | 0.04× | 0.04 |  | 505 |"), md);
        assertTrue(md.contains("round trip ns |"), md);
    }

    /** A profile summary of LinearChain for perdevice and cf, as ProfileSummary writes it. */
    private static final String PROFILE = "{\"jdk\": 17, \"javaVersion\": \"17.0.15 (VM)\", \"date\": \"2026-01-01T00:00:00Z\", "
            + "\"commit\": \"abc\", \"cores\": 2, \"settings\": \"forks 1\", \"profiles\": ["
            + "{\"benchmark\": \"org.depengine.benchmarks.LinearChain.engine\", \"params\": {\"engine\": \"perdevice\"}, "
            + "\"opsPerRun\": 65536, \"nanosPerRun\": 6553600, \"allocBytesPerRun\": 3670016, \"gcCount\": 2, \"gcMillis\": 3, "
            + "\"samples\": 100, \"roles\": [{\"role\": \"pusher\", \"threads\": 1, \"cpuCores\": 0.9, \"busiestThreads\": [], "
            + "\"samples\": 80, \"selfFrames\": [{\"name\": \"LockSupport.unpark\", \"weight\": 40}], "
            + "\"engineFrames\": [{\"name\": \"(no engine frame)\", \"weight\": 50}, {\"name\": \"OpBlock.release\", \"weight\": 40}]}, "
            + "{\"role\": \"engine workers\", \"threads\": 2, \"cpuCores\": 0.6, \"busiestThreads\": [{\"name\": \"w1\", \"weight\": 0.5}], "
            + "\"samples\": 20, \"selfFrames\": [], \"engineFrames\": []}], \"allocationBytes\": 100, "
            + "\"allocations\": [{\"name\": \"Node ← VarQueue.add\", \"weight\": 75}]}, "
            + "{\"benchmark\": \"org.depengine.benchmarks.LinearChain.baseline\", \"params\": {\"baseline\": \"cf\"}, "
            + "\"opsPerRun\": 65536, \"nanosPerRun\": 6553600, \"allocBytesPerRun\": 4587520, \"gcCount\": 1, \"gcMillis\": 1, "
            + "\"samples\": 0, \"roles\": [], \"allocationBytes\": 0, \"allocations\": []}]}";

    private static List<String> missedChains() {
        int chain = 1 << 16;
        return List.of(result("LinearChain.baseline", "\"baseline\": \"serial\"", chain * 0.005),
                result("LinearChain.baseline", "\"baseline\": \"cf\"", chain * 0.120),
                result("LinearChain.engine", "\"engine\": \"perdevice\"", chain * 0.300),
                result("LinearChain.engine", "\"engine\": \"pooled\"", chain * 0.300));
    }

    @Test
    void aMissedTargetQuotesItsProfile(@TempDir Path dir) throws Exception {
        write(dir, "targets-jdk17", missedChains());
        Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(dir.resolve("profiles/jdk17.json"), PROFILE, StandardCharsets.UTF_8);
        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);

        assertTrue(md.contains("| LinearChain ≤ 185 ns/op | perdevice | 300 ns/op | **missed** | [56.0 B/op (cf 70.0); "
                + "CPU pusher 0.90, engine workers 0.60 cores; hottest engine methods: pusher `OpBlock.release` 50 %]"
                + "(#profile-linearchain--perdevice--jdk-17) |"), md);
        assertTrue(md.contains("| LinearChain ≤ 185 ns/op | pooled | 300 ns/op | **missed** | no profile |"), md);
        assertTrue(md.contains("#### Profile: LinearChain · perdevice · JDK 17"), md);
        assertTrue(md.contains("allocation 56.0 B/op (cf: 70.0 B/op), GC: 2 collections, 3 ms"), md);
        assertTrue(md.contains("| pusher (1) | 0.90 | 80 (80 %) | `LockSupport.unpark` 50 % |"), md);
        assertTrue(md.contains("| engine workers (2: w1 0.50) | 0.60 | 20 (20 %) | – | – |"), md);
        assertTrue(md.contains("`Node ← VarQueue.add` 75 %"), md);
    }

    /** One profiled benchmark of a profile summary, as ProfileSummary writes it. */
    private static String profiled(String benchmark, String params, int ops, double nanosPerRun, double bytesPerRun,
                                   String roles) {
        return String.format(Locale.ROOT, "{\"benchmark\": \"org.depengine.benchmarks.%s\", \"params\": {%s}, "
                + "\"opsPerRun\": %d, \"nanosPerRun\": %f, \"allocBytesPerRun\": %f, \"gcCount\": 0, \"gcMillis\": 0, "
                + "\"samples\": 150, \"roles\": [%s], \"allocationBytes\": 0, \"allocations\": []}",
                benchmark, params, ops, nanosPerRun, bytesPerRun, roles);
    }

    /** A role of a profiled benchmark; {@code profilerSamples} null: left out, as in summaries written before it. */
    private static String role(String name, double cores, int samples, String hottest, int weight, Integer profilerSamples) {
        return String.format(Locale.ROOT, "{\"role\": \"%s\", \"threads\": 1, \"cpuCores\": %f, \"busiestThreads\": [], "
                + "\"samples\": %d, \"selfFrames\": [], \"engineFrames\": [{\"name\": \"%s\", \"weight\": %d}]%s}",
                name, cores, samples, hottest, weight, profilerSamples == null ? "" : ", \"profilerSamples\": " + profilerSamples);
    }

    /** The why column of the target row {@code target} for {@code engine}. */
    private static String why(String md, String target, String engine) {
        String start = "| " + target + " | " + engine + " | ";
        for (String line : md.split("\n")) {
            if (line.startsWith(start)) {
                String[] cells = line.split(" \\| ");
                return cells[cells.length - 1].replaceAll(" \\|$", "");
            }
        }
        throw new AssertionError("no row " + start + " in\n" + md);
    }

    @Test
    void everyMissedRowQuotesTheProfileOfTheResultItWasJudgedOn(@TempDir Path dir) throws Exception {
        List<String> r = new ArrayList<>();
        // RandomDag wide (10,000 ops): pooled 200 ns/op off, 400 on (2.00×: missed); its forks disagree (2×).
        r.add(result("RandomDag.baseline", "\"shape\": \"wide\", \"baseline\": \"serial\"", 1000));
        r.add(result("RandomDag.baseline", "\"shape\": \"wide\", \"baseline\": \"cf\"", 5000));
        r.add(result("RandomDag.engine", "\"shape\": \"wide\", \"engine\": \"pooled\", \"profiling\": \"off\"", 2000));
        r.add(withForks("RandomDag.engine", "\"shape\": \"wide\", \"engine\": \"pooled\", \"profiling\": \"on\"", 4000,
                new double[][] {{4000, 4000}, {8000, 8000}}));
        // CpuParallel: pooled's speed-up 1.89× at both grains: missed at 100 µs, met at 10 µs.
        for (int g : new int[] {10, 100}) {
            r.add(result("CpuParallel.baseline", "\"grainMicros\": \"" + g + "\", \"baseline\": \"serial\"", 10_000));
            r.add(result("CpuParallel.engine", "\"grainMicros\": \"" + g + "\", \"engine\": \"pooled\"", 5_300));
        }
        // ComputeCopyOverlap: pooled at 0.80 of ideal on cpu, 0.20 on opencl.
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"cpu\", \"baseline\": \"copyLane\"", 3200));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"cpu\", \"baseline\": \"computeLane\"", 3300));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"cpu\", \"baseline\": \"serial\"", 6500));
        r.add(result("ComputeCopyOverlap.engine", "\"device\": \"cpu\", \"engine\": \"pooled\"", 4100));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"opencl\", \"baseline\": \"copyLane\"", 3000));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"opencl\", \"baseline\": \"computeLane\"", 3000));
        r.add(result("ComputeCopyOverlap.baseline", "\"device\": \"opencl\", \"baseline\": \"serial\"", 5600));
        r.add(result("ComputeCopyOverlap.engine", "\"device\": \"opencl\", \"engine\": \"pooled\"", 15_000));
        // Metg: perdevice at 0.25 efficiency (METG missed), its forks 3× apart; Metg is never profiled.
        r.add(result("Metg.baseline", "\"grainNanos\": \"500\", \"baseline\": \"serial\"", 4000));
        r.add(withForks("Metg.engine", "\"grainNanos\": \"500\", \"engine\": \"perdevice\"", 8000,
                new double[][] {{8000, 8000}, {24000, 24000}}));
        write(dir, "targets-jdk17", r);

        // Profiles listed so that a match on fewer than all parameters finds the wrong one first:
        // profiling=off before on, G=10 before G=100.
        String workers = role("engine workers", 1.2, 100, "Recorder.onOpEvent", 30, 30);
        String pusher = role("pusher", 0.5, 50, "AbstractEngine.submit", 20, 5);
        List<String> p = new ArrayList<>();
        p.add(profiled("RandomDag.engine", "\"shape\": \"wide\", \"engine\": \"pooled\", \"profiling\": \"off\"", 10_000,
                2e6, 2e6, role("engine workers", 1.0, 100, "OpExecution.run", 10, 0)));
        p.add(profiled("RandomDag.engine", "\"shape\": \"wide\", \"engine\": \"pooled\", \"profiling\": \"on\"", 10_000,
                4.4e6, 3e6, workers + ", " + pusher));
        p.add(profiled("RandomDag.baseline", "\"shape\": \"wide\", \"baseline\": \"cf\"", 10_000, 5e6, 1e6, ""));
        p.add(profiled("CpuParallel.engine", "\"grainMicros\": \"10\", \"engine\": \"pooled\"", 1000, 5.3e6, 1000,
                role("engine workers", 1.9, 100, "OpExecution.run", 5, null)));
        p.add(profiled("CpuParallel.engine", "\"grainMicros\": \"100\", \"engine\": \"pooled\"", 100, 5.3e6, 10_000,
                role("engine workers", 1.9, 100, "OpExecution.run", 5, null)));
        p.add(profiled("ComputeCopyOverlap.engine", "\"device\": \"cpu\", \"engine\": \"pooled\"", 192, 4.1e6, 192 * 50,
                role("engine workers", 1.5, 100, "OpExecution.run", 5, null)));
        p.add(profiled("ComputeCopyOverlap.engine", "\"device\": \"opencl\", \"engine\": \"pooled\"", 192, 15e6, 192 * 80,
                role("engine workers", 0.9, 100, "OpenClStream.write", 50, null)));
        Files.createDirectories(dir.resolve("profiles"));
        Files.writeString(dir.resolve("profiles/jdk17.json"), "{\"jdk\": 17, \"javaVersion\": \"17.0.15 (VM)\", "
                + "\"date\": \"2026-01-01T00:00:00Z\", \"commit\": \"abc\", \"cores\": 2, \"settings\": \"forks 1\", "
                + "\"profiles\": [" + String.join(", ", p) + "]}", StandardCharsets.UTF_8);
        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);

        String table = md.substring(md.indexOf("### Targets"), md.indexOf("### Profiles"));
        assertTrue(!table.contains(ProfileSection.NO_PROFILE), table);
        String onQuote = "[300 B/op (profiler off 200, cf 100); CPU engine workers 1.20, pusher 0.50 cores; hottest engine "
                + "methods: engine workers `Recorder.onOpEvent` 30 %, pusher `AbstractEngine.submit` 40 %; profiler code on the "
                + "stack in engine workers 30 % of samples, pusher 10 %](#profile-randomdag-shapewide--pooledprofiler--jdk-17)";
        assertEquals(onQuote, why(md, "RandomDag wide: profiler on ≤ 1.5× per op", "pooled"));
        assertEquals("[100 B/op; CPU engine workers 1.90 cores; hottest engine methods: engine workers `OpExecution.run` 5 %]"
                + "(#profile-cpuparallel-grainmicros100--pooled--jdk-17)", why(md, "CpuParallel G=100 µs: speed-up ≥ 1.9× (as before)", "pooled"));
        assertTrue(why(md, "ComputeCopyOverlap (cpu): ≥ 0.9 of ideal (as before)", "pooled")
                .matches("\\[50\\.0 B/op; .*\\(#profile-computecopyoverlap-devicecpu--pooled--jdk-17\\)"), md);
        assertTrue(why(md, "ComputeCopyOverlap (opencl): ≥ 0.9 of ideal (as before)", "pooled")
                .matches("\\[80\\.0 B/op; .*`OpenClStream.write` 50 %\\]\\(#profile-computecopyoverlap-deviceopencl--pooled--jdk-17\\)"), md);
        // The fork rows: the worst result's profile (one fork), or why it has none.
        assertEquals("its profile (one fork) ran at 440 ns/op, the forks' median 400: " + onQuote,
                why(md, "forks agree within 1.5× on every workload", "pooled"));
        assertTrue(why(md, "forks agree within 1.5× on every workload", "perdevice")
                .startsWith("not profiled: this JDK's profile step ran no Metg benchmark"), md);
        assertEquals(ProfileSection.METG_NOT_PROFILED, why(md, "METG (op length at 50 % efficiency) reported", "perdevice"));
        // The profile itself names the profiler's share; the measured ns/op is that of the same result.
        assertTrue(md.contains("Profiled: 4.40 ms per run, 440 ns/op (measured above: 400 ns/op)"), md);
        assertTrue(md.contains("Profiler code (`org.depengine.profiler`) on the stack in engine workers 30 % of samples, "
                + "pusher 10 %"), md);
    }

    @Test
    void aReplayRunHasTheReplayTargetsOnly(@TempDir Path dir) throws Exception {
        List<String> r = new ArrayList<>();
        int chain = 1 << 16;
        r.add(result("Replay.baseline", "\"shape\": \"chain\", \"baseline\": \"cf\"", chain * 0.100));
        r.add(result("Replay.engine", "\"shape\": \"chain\", \"engine\": \"naive+replay\"", chain * 0.030));
        r.add(result("Replay.engine", "\"shape\": \"chain\", \"engine\": \"naive\"", chain * 0.120));
        r.add(result("Replay.engine", "\"shape\": \"chain\", \"engine\": \"perdevice+replay\"", chain * 0.200));
        r.add(result("Replay.engine", "\"shape\": \"chain\", \"engine\": \"perdevice\"", chain * 0.400));
        for (int g : new int[] {500, 2000}) { // efficiency 0.25 at 500 ns, 1.0 at 2000 ns (see above)
            r.add(result("Metg.baseline", "\"grainNanos\": \"" + g + "\", \"baseline\": \"serial\"", 4000));
        }
        r.add(result("Metg.engine", "\"grainNanos\": \"500\", \"engine\": \"perdevice\"", 8000));
        r.add(result("Metg.engine", "\"grainNanos\": \"2000\", \"engine\": \"perdevice\"", 2000));
        r.add(result("Metg.replay", "\"grainNanos\": \"500\", \"engine\": \"perdevice+replay\"", 4000));
        r.add(result("Metg.replay", "\"grainNanos\": \"2000\", \"engine\": \"perdevice+replay\"", 2000));
        write(dir, "replay-jdk17", r);
        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);

        assertTrue(md.contains("## replay · JDK 17"), md);
        assertFalse(md.contains("### Targets"), md); // issue #16's table belongs to the other modes
        assertTrue(md.contains("#### Replay {shape=chain}"), md);
        // A result without a graph parameter (older runs) is a whole-list one.
        assertTrue(md.contains("| Replay chain (whole list, one graph): replayed ≤ 40 ns/op | naive | 30.0 ns/op replayed, 120 pushed | met |"), md);
        assertTrue(md.contains("| Replay chain (whole list, one graph): replayed ≤ 0.3× pushed | perdevice | 200 ns/op replayed vs 400 pushed: 0.50× | **missed** |"), md);
        assertTrue(md.contains("| Replay mxnet (whole list, one graph): replayed ≤ 40 ns/op | naive | – | no data |"), md);
        assertTrue(md.contains("| Replay chain (a 1024-op step replayed): replayed ≤ 40 ns/op | naive | – | no data |"), md);
        assertTrue(md.contains("| METG with replay beside METG without | perdevice | 500 ns with replay, 794 ns without | reported |"), md);
    }

    @Test
    void aProfileIsFoundOnlyForTheSameBenchmarkAndParameters() {
        ProfileRun.Profile on = new ProfileRun.Profile("org.depengine.benchmarks.RandomDag.engine",
                Map.of("shape", "wide", "engine", "pooled", "profiling", "on"), 10_000, 1, 1, 0, 0, 0, List.of(), 0, List.of());
        ProfileRun run = new ProfileRun(17, "17", "", "", 2, "", List.of(on));
        assertSame(on, run.find(new Result("RandomDag", "engine", Map.of("profiling", "on", "engine", "pooled", "shape", "wide"),
                1, Double.NaN)));
        assertNull(run.find(new Result("RandomDag", "engine", Map.of("profiling", "off", "engine", "pooled", "shape", "wide"),
                1, Double.NaN)));
        assertNull(run.find(new Result("RandomDag", "engine", Map.of("profiling", "on", "engine", "pooled", "shape", "mxnet"),
                1, Double.NaN)));
        assertNull(run.find(new Result("RandomDag", "baseline", Map.of("profiling", "on", "engine", "pooled", "shape", "wide"),
                1, Double.NaN)));
        assertTrue(run.covers("RandomDag"));
        assertTrue(!run.covers("Metg"));
    }

    @Test
    void withoutProfilesTheReportSaysSo(@TempDir Path dir) throws Exception {
        write(dir, "targets-jdk25", missedChains());
        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(md.contains("## targets · JDK 25"), md);
        assertTrue(md.contains("| LinearChain ≤ 185 ns/op | perdevice | 300 ns/op | **missed** | no profile |"), md);
        assertTrue(md.contains("### Profiles\n\nNo profile for JDK 25"), md);
    }

    @Test
    void aFileThatIsNotJmhsIsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("quick-jdk17.json"), "{\"not\": \"jmh\"}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReportMain.main(new String[] {dir.toString(), dir.resolve("out.md").toString()}));
        assertTrue(e.getMessage().contains("not a JMH result file"), e.getMessage());
    }

    @Test
    void sectionsMeasuredOutsideJmhFollowInFileNameOrder(@TempDir Path dir) throws Exception {
        write(dir, "quick-jdk17", List.of(result("LinearChain.engine", "\"engine\": \"perdevice\"", 1000)));
        Files.createDirectories(dir.resolve(ReportMain.SECTIONS));
        Files.writeString(dir.resolve(ReportMain.SECTIONS).resolve("b.md"), "## B section\n\nbody b\n");
        Files.writeString(dir.resolve(ReportMain.SECTIONS).resolve("a.md"), "## A section\n\nbody a\n");
        Files.writeString(dir.resolve(ReportMain.SECTIONS).resolve("notes.txt"), "not a section");
        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        String md = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(md.indexOf("## quick · JDK 17") < md.indexOf("## A section\n\nbody a\n"), md);
        assertTrue(md.indexOf("body a") < md.indexOf("## B section\n\nbody b\n"), md);
        assertTrue(!md.contains("not a section"), md);
    }

    @Test
    void anEmptyResultsFolderSaysHowToFillIt(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("RESULTS.md");
        ReportMain.main(new String[] {dir.toString(), out.toString()});
        assertTrue(Files.readString(out).contains("No results yet: run `benchmarks/run.sh quick`"));
    }

    @Test
    void sectionLinksUseGithubAnchors() {
        assertEquals("quick--jdk-17", Report.anchor("quick · JDK 17"));
    }

    @Test
    void unitsAreConvertedToNanoseconds() {
        assertEquals(1e3, RunData.toNanos("us/op"));
        assertEquals(1e6, RunData.toNanos("ms/op"));
        assertEquals(1, RunData.toNanos("ns/op"));
        assertThrows(IllegalArgumentException.class, () -> RunData.toNanos("ops/s"));
    }
}
