package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Devices;
import org.depengine.kvstore.spi.Rounds;
import org.depengine.testkit.Json;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs MultiDeviceTraining on the module path and checks what it learned: at least 95 % accuracy on the
 * default spiral, and the same loss curve under every engine and with two worker processes (the store
 * sums gradients in device order, then rank order, so no engine or process split changes the arithmetic).
 */
class MultiDeviceTrainingTest {
    private static final String MAIN = "org.depengine.examples.MultiDeviceTraining";
    private static final Pattern EPOCH = Pattern.compile("epoch +(\\d+)/(\\d+) \\[#+] loss (\\d+\\.\\d+) +acc +(\\d+\\.\\d)%");
    private static final Pattern FINAL = Pattern.compile("final accuracy on all (\\d+) samples: (\\d+\\.\\d)%");
    private static final double SAME_LOSS = 2e-5; // printed with 5 decimals
    /** An elastic run's epoch line: the loss printed, the accuracy, the loss in full. */
    private static final Pattern EXACT = Pattern.compile("(?m)^epoch +(\\d+)/\\d+ \\[#+] loss (\\d+\\.\\d+) +acc +"
            + "(\\d+\\.\\d)%.*  exact loss (\\S+)$");

    @TempDir
    Path dir;

    /** What one run printed, parsed. */
    private record Run(List<Double> losses, double accuracy, String out) {
    }

    private Run train(String engine, String devices, Path trace, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--engine", engine, "--devices", devices, "--trace", trace.toString()));
        args.addAll(List.of(more));
        String out = DependencyBasicsTest.runOnModulePath(MAIN, args.toArray(String[]::new));
        assertTrue(out.contains("engine " + engine + "; devices " + devices), out);
        List<Double> losses = losses(out);
        Matcher f = FINAL.matcher(out);
        assertTrue(f.find(), out);
        assertTrue(Pattern.compile("time per epoch: \\d+\\.\\d ms").matcher(out).find(), out);
        assertTrue(out.contains("trace: " + trace.toAbsolutePath()), out);
        return new Run(losses, Double.parseDouble(f.group(2)), out);
    }

    /** The per-epoch losses MultiDeviceTraining printed, in order (the epochs must count up from 1). */
    static List<Double> losses(String out) {
        return losses(out, 1);
    }

    /** The per-epoch losses MultiDeviceTraining printed, in order (the epochs must count up from {@code first}). */
    static List<Double> losses(String out, int first) {
        List<Double> losses = new ArrayList<>();
        Matcher m = EPOCH.matcher(out);
        while (m.find()) {
            assertEquals(losses.size() + first, Integer.parseInt(m.group(1)), out);
            losses.add(Double.parseDouble(m.group(3)));
        }
        return losses;
    }

    private static void assertSameCurve(Run expected, Run actual, String what) {
        assertEquals(expected.losses.size(), actual.losses.size(), what);
        for (int e = 0; e < expected.losses.size(); e++) {
            assertEquals(expected.losses.get(e), actual.losses.get(e), SAME_LOSS, what + ": epoch " + (e + 1) + "\n" + actual.out);
        }
    }

    @Test
    void everyEngineReachesTheTargetOnTwoCpuDevicesWithTheSameLossCurve() throws Exception {
        Run reference = null;
        for (String engine : List.of("naive", "pooled", "perdevice")) {
            Path trace = dir.resolve(engine + ".json");
            Run run = train(engine, "cpu:0,cpu:1", trace);
            assertEquals(30, run.losses.size(), run.out);
            assertTrue(run.accuracy >= 95.0, engine + " reached only " + run.accuracy + "%\n" + run.out);
            assertTrue(run.losses.get(29) < run.losses.get(0) / 3, "the loss must fall\n" + run.out);
            if (reference == null) {
                reference = run;
            } else {
                assertSameCurve(reference, run, engine + " against naive");
            }
            assertTraceHoldsTheTrainingOps(trace);
        }
    }

    /** The trace is valid JSON with an event for each kind of op the program pushes, on each device. */
    @SuppressWarnings("unchecked")
    private static void assertTraceHoldsTheTrainingOps(Path trace) throws Exception {
        assertTrue(Files.exists(trace), trace + " was not written");
        assertTrue(Files.exists(trace.resolveSibling(trace.getFileName().toString().replace(".json", ".html"))));
        Map<String, Object> json = (Map<String, Object>) Json.parse(Files.readString(trace));
        Set<String> names = new HashSet<>();
        for (Object e : (List<Object>) json.get("traceEvents")) {
            Object name = ((Map<String, Object>) e).get("name");
            if (name instanceof String) {
                names.add((String) name);
            }
        }
        for (String op : List.of("load batch", "fc1 forward", "fc2 forward", "loss and gradient", "fc2 backward",
                "fc1 backward", "metrics", "epoch report", "shuffle")) {
            assertTrue(names.contains(op), "no '" + op + "' in the trace; names: " + names);
        }
        boolean full = (Double) ((Map<String, Object>) json.get("otherData")).get("droppedRecords") == 0;
        // Per-epoch ops share one name and carry their epoch as an argument: 1, 2, ... once each.
        for (String op : List.of("shuffle", "epoch report")) {
            List<Object> epochs = new ArrayList<>();
            for (Object e : (List<Object>) json.get("traceEvents")) {
                Map<String, Object> ev = (Map<String, Object>) e;
                if (op.equals(ev.get("name")) && "X".equals(ev.get("ph")) && !"op,device".equals(ev.get("cat"))) {
                    epochs.add(((Map<String, Object>) ev.get("args")).get("epoch"));
                }
            }
            assertTrue(!epochs.isEmpty(), "no '" + op + "' op event");
            assertEquals(epochs.size(), new HashSet<>(epochs).size(), "one '" + op + "' per epoch: " + epochs);
            if (full) { // a full trace has every epoch; with dropped records only the latest window
                List<Object> expected = new ArrayList<>();
                for (int k = 1; k <= epochs.size(); k++) {
                    expected.add((double) k);
                }
                assertEquals(expected, epochs.stream().sorted().toList(), "the epochs of '" + op + "'");
            }
        }
        // The KVStore's ops, named per key (their rounds are taken when they run): device-to-host copies and
        // the sum of the gradients, the store's update, the copies back.
        for (String op : List.of("kvstore push fc1.w: copy value 0 to host", "kvstore push fc2.b: sum the values",
                "kvstore push fc1.w", "kvstore pull fc2.w: copy to out 0")) {
            assertTrue(names.contains(op), "no '" + op + "' in the trace; names: " + names);
        }
    }

    /**
     * {@code --kvstore dist_sync --workers 2}: two worker JVMs on loopback, one device each, print the same
     * loss curve as one process with both devices (the store sums in the same order); {@code dist_async}
     * learns too.
     */
    @Test
    void twoWorkerProcessesMatchTheLocalCurveWithDistSyncAndLearnWithDistAsync() throws Exception {
        Run local = train("perdevice", "cpu:0,cpu:1", dir.resolve("local.json"), "--kvstore", "local");
        Run sync = trainDistributed("dist_sync");
        assertEquals(local.losses, sync.losses, "dist_sync over 2 workers against local on cpu:0,cpu:1\n" + sync.out);
        assertTrue(sync.accuracy >= 95.0, sync.out);
        Run async = trainDistributed("dist_async");
        assertEquals(30, async.losses.size(), async.out);
        assertTrue(async.accuracy >= 95.0, "dist_async reached only " + async.accuracy + "%\n" + async.out);
    }

    private Run trainDistributed(String type) throws Exception {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), 420, MAIN, "--kvstore", type, "--workers", "2",
                "--trace", "off");
        assertEquals(0, r.exitCode(), r.output());
        String out = r.output();
        assertTrue(out.contains("kvstore " + type + ": 2 workers on loopback"), out);
        assertTrue(out.contains("devices cpu:0; host ops (shuffles, metrics) on cpu:1; kvstore " + type + " (2 workers"), out);
        List<Double> losses = losses(out);
        Matcher f = FINAL.matcher(out);
        assertTrue(f.find(), out);
        return new Run(losses, Double.parseDouble(f.group(2)), out);
    }

    /**
     * {@code --checkpoint-every} and {@code --resume}: a run stopped after epoch 10 (its last checkpoint)
     * and resumed to epoch 14 prints, epoch for epoch, the losses of a run that never stopped; with the
     * local store, and with dist_sync over 2 worker processes (whose curve is the local one, above).
     */
    @Test
    void aRunStoppedAfterEpoch10AndResumedPrintsTheLossesOfAnUninterruptedRun() throws Exception {
        List<Double> whole = losses(runOk("--kvstore", "local", "--epochs", "14"));
        assertEquals(14, whole.size());
        for (List<String> store : List.of(List.of("--kvstore", "local"), List.of("--kvstore", "dist_sync", "--workers", "2"))) {
            Path file = dir.resolve(store.get(1) + ".ckpt");
            List<String> first = new ArrayList<>(store);
            first.addAll(List.of("--epochs", "10", "--checkpoint-every", "5", "--checkpoint", file.toString()));
            String stopped = runOk(first.toArray(String[]::new));
            assertTrue(stopped.contains("checkpoint after epoch 10: " + file), stopped);
            assertEquals(whole.subList(0, 10), losses(stopped), store + ": epochs 1..10\n" + stopped);

            List<String> second = new ArrayList<>(store);
            second.addAll(List.of("--epochs", "14", "--resume", file.toString()));
            String resumed = runOk(second.toArray(String[]::new));
            assertEquals(whole.subList(10, 14), losses(resumed, 11), store + ": epochs 11..14 after the resume\n" + resumed);
        }
        ModulePathLauncher.Result done = ModulePathLauncher.launch(List.of(), MAIN, "--trace", "off", "--epochs", "10",
                "--resume", dir.resolve("local.ckpt").toString());
        assertEquals(2, done.exitCode(), done.output());
        assertTrue(done.output().contains("10 epochs done; --epochs 10 leaves none to train"), done.output());
    }

    /**
     * A captured run (each batch's whole step, store calls included, replayed from a graph) prints the
     * losses of a run that makes its calls one by one ({@code --no-capture}), digit for digit, on every engine and with dist_sync
     * over 2 worker processes. A batch of 70 leaves a short last batch (its own graph), and 3 epochs
     * replay both sources' graphs, one of them twice.
     */
    @Test
    void capturedStepsPrintTheLossesOfStepsPushedOneByOne() throws Exception {
        List<String> small = List.of("--epochs", "3", "--batch", "70", "--hidden", "16");
        for (List<String> config : List.of(List.of("--engine", "naive"), List.of("--engine", "pooled"),
                List.of("--engine", "perdevice"), List.of("--kvstore", "dist_sync", "--workers", "2"))) {
            List<String> args = new ArrayList<>(config);
            args.addAll(small);
            String captured = runOk(args.toArray(String[]::new));
            assertTrue(captured.contains("each batch's step (device, metrics and store ops) replayed from a captured graph"), captured);
            args.add("--no-capture");
            String oneByOne = runOk(args.toArray(String[]::new));
            assertTrue(oneByOne.contains("ops pushed one by one (--no-capture)"), oneByOne);
            List<Double> expected = losses(oneByOne);
            assertEquals(3, expected.size(), oneByOne);
            assertEquals(expected, losses(captured), config + ": captured against --no-capture\n" + captured);
        }
    }

    /**
     * {@code --elastic} over 3 worker processes of 2 devices each, rank 1 killed ({@code destroyForcibly}) when
     * rank 0 starts epoch 10: the job trains all 30 epochs without it to at least 95 %, and every epoch's loss
     * and accuracy are, to the last bit of the loss, those of {@link ElasticReference}: one process replaying
     * the membership history the run printed (which rounds of which key were summed over which workers, and
     * each epoch's split). {@code --no-capture} too, in CI a shorter run (8 epochs, rank 2 killed at epoch 4).
     * The long form ({@code -Ddepengine.test.long=true}) runs that one for 30 epochs, killed at epoch 10, and
     * 4 workers losing rank 1 at epoch 5 and rank 3 at epoch 12 (two changes, the second relabelling).
     */
    @Test
    void anElasticJobGoesOnWithoutAKilledWorkerWithTheLossesOfItsMembershipHistory() throws Exception {
        checkElastic(3, List.of("1@10"), 20, 30, false);
        if (Boolean.getBoolean("depengine.test.long")) {
            checkElastic(3, List.of("2@10"), 20, 30, true);
            checkElastic(4, List.of("1@5", "3@12"), null, 30, false);
        } else {
            checkElastic(3, List.of("2@4"), null, 8, true);
        }
    }

    /**
     * Runs an elastic job of {@code workers} workers with {@code kills} (RANK@EPOCH, in epoch order, before the
     * join) and a joiner started at epoch {@code joinAt} (null: none), and checks it.
     */
    private void checkElastic(int workers, List<String> kills, Integer joinAt, int epochs, boolean noCapture)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("--kvstore", "dist_sync", "--workers", Integer.toString(workers),
                "--devices", "cpu:0,cpu:1", "--elastic", "--min-workers", "1", "--epochs", Integer.toString(epochs)));
        for (String k : kills) {
            args.addAll(List.of("--kill", k));
        }
        if (joinAt != null) {
            args.addAll(List.of("--join-at", Integer.toString(joinAt)));
        }
        if (noCapture) {
            args.add("--no-capture");
        }
        String what = String.join(" ", args);
        args.addAll(List.of("--trace", "off"));
        long t0 = System.nanoTime();
        // A store that stops making progress fails within a minute, saying where, rather than at the test's timeout.
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of("-Ddepengine.kvstore.timeoutMs=60000"), 240, MAIN,
                args.toArray(String[]::new));
        double runSeconds = (System.nanoTime() - t0) / 1e9;
        String out = r.output();
        assertEquals(0, r.exitCode(), what + "\n" + out);

        // One view per kill (each waits for the one before: the next epoch's split needs it), the killed ones out;
        // then one that admits the joiner (rank 0 waits for it at the epoch it started it), after the others.
        List<ElasticReference.View> views = ElasticReference.history(out, workers);
        assertEquals(kills.size() + (joinAt == null ? 1 : 2), views.size(), "a change per kill and join\n" + out);
        List<String> alive = new ArrayList<>(views.get(0).workers());
        for (int c = 0; c < kills.size(); c++) {
            String[] k = kills.get(c).split("@");
            assertTrue(out.contains("epoch " + k[1] + ": killed worker rank " + k[0] + " (process "), out);
            alive.remove("w" + k[0]);
            ElasticReference.View v = views.get(c + 1);
            assertEquals(c + 1, v.epoch(), out);
            assertEquals(alive, v.workers(), out);
            assertEquals(Set.of("fc1.w", "fc1.b", "fc2.w", "fc2.b", "metrics", "progress", "shares"),
                    v.firstRoundOf().keySet(), out);
        }
        if (joinAt != null) {
            assertTrue(out.contains("epoch " + joinAt + ": started a joiner (process "), out);
            ElasticReference.View admitted = views.get(views.size() - 1);
            alive.add("w" + workers);
            assertEquals(alive, admitted.workers(), out);
            // Admitted during epoch joinAt (period joinAt - 1): its rounds start in the next period, epoch joinAt + 1.
            assertEquals(Map.of("w" + workers, joinAt), admitted.joinedFrom(), out);
        }

        // Each new split is printed at the epoch the history gives it: the view in force for the epoch's shares round.
        Map<Integer, List<String>> expectedSplits = new java.util.LinkedHashMap<>();
        List<String> previous = null;
        for (int e = 1; e <= epochs; e++) {
            List<String> split = ElasticReference.inForce(views, WorkerShares.KEY, Rounds.of(e - 1, 1)).workers();
            if (!split.equals(previous)) {
                expectedSplits.put(e, split);
            }
            previous = split;
        }
        Map<Integer, List<String>> printedSplits = new java.util.LinkedHashMap<>();
        ElasticReference.splits(out).forEach((e, v) -> printedSplits.put(e, v.workers()));
        assertEquals(expectedSplits, printedSplits, out);

        long r0 = System.nanoTime();
        List<ElasticReference.Epoch> reference = ElasticReference.epochs(views, 2, epochs, 60, 64, 0.8f, 1);
        double referenceSeconds = (System.nanoTime() - r0) / 1e9;
        Matcher m = EXACT.matcher(out);
        int e = 0;
        while (m.find()) {
            ElasticReference.Epoch ref = reference.get(e);
            e++;
            assertEquals(e, Integer.parseInt(m.group(1)), out);
            String where = what + ": epoch " + e + ", history " + views + "\n" + out;
            assertEquals(ref.loss(), Double.parseDouble(m.group(4)), 0.0, where); // bit for bit
            assertEquals(String.format(Locale.ROOT, "%.5f", ref.loss()), m.group(2), where);
            assertEquals(String.format(Locale.ROOT, "%.1f", 100.0 * ref.accuracy()), m.group(3), where);
        }
        assertEquals(epochs, e, "every epoch's line\n" + out);
        // The history matters: a reference that ignores the changes ends elsewhere.
        List<ElasticReference.Epoch> noChange = ElasticReference.epochs(views.subList(0, 1), 2, epochs, 60, 64, 0.8f, 1);
        assertNotEquals(noChange.get(epochs - 1).loss(), reference.get(epochs - 1).loss(), "the kills changed nothing\n"
                + out);
        Matcher f = FINAL.matcher(out);
        assertTrue(f.find(), out);
        if (epochs == 30) {
            assertTrue(Double.parseDouble(f.group(2)) >= 95.0, out);
        }
        System.out.printf(Locale.ROOT, "%s: %.1f s, the reference %.1f s; history %s%n", what, runSeconds,
                referenceSeconds, views);
    }

    /** Runs MultiDeviceTraining without a trace, expecting success; its output. */
    private static String runOk(String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("--trace", "off"));
        a.addAll(List.of(args));
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), 420, MAIN, a.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r.output());
        return r.output();
    }

    @Test
    void trainsOnOpenClAndCpuTogether() throws Exception {
        Availability a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL runtime (CI installs PoCL)");
        Run perdevice = train("perdevice", "opencl:0,cpu:0", dir.resolve("ocl.json"));
        assertTrue(perdevice.accuracy >= 95.0, perdevice.out);
        assertTrue(perdevice.out.contains("host ops (shuffles, metrics) on cpu:1"), perdevice.out);
        Run pooled = train("pooled", "opencl:0,cpu:0", dir.resolve("ocl-pooled.json"));
        assertSameCurve(perdevice, pooled, "pooled against perdevice on opencl:0,cpu:0");
    }

    @Test
    void learnsFromACsvFile() throws Exception {
        // Two Gaussian blobs, one per class: separable, so a few epochs suffice.
        Random rnd = new Random(7);
        StringBuilder csv = new StringBuilder("x,y,label\n");
        for (int i = 0; i < 200; i++) {
            int label = i % 2;
            csv.append(rnd.nextGaussian() * 0.3 + (label == 0 ? -1 : 1)).append(',')
                    .append(rnd.nextGaussian() * 0.3).append(',').append(label).append('\n');
        }
        Path file = dir.resolve("blobs.csv");
        Files.writeString(file, csv);
        Run run = train("perdevice", "cpu:0,cpu:1", dir.resolve("csv.json"), "--data", file.toString(), "--epochs", "5");
        assertTrue(run.out.contains("200 samples from " + file + " (2 features, 2 classes)"), run.out);
        assertEquals(5, run.losses.size(), run.out);
        assertTrue(run.accuracy >= 95.0, run.out);
    }

    @Test
    void metricsPrintsTheMetersSummaryAndServesThemOnLoopback() throws Exception {
        String out = runOk("--engine", "perdevice", "--epochs", "2", "--metrics", "--metrics-port", "0");
        assertTrue(Pattern.compile("metrics: Prometheus text format at http://127\\.0\\.0\\.1:\\d+/metrics while training")
                .matcher(out).find(), out);
        Matcher ops = Pattern.compile("ops: pushed (\\d+), failed 0, skipped 0, replayed (\\d+); pending 0, waiters 0")
                .matcher(out);
        assertTrue(ops.find(), out);
        long pushed = Long.parseLong(ops.group(1));
        assertTrue(pushed > 0 && Long.parseLong(ops.group(2)) < pushed, out);
        // One line per worker group; their completed ops add up to the ops pushed (no op runs inline here), but
        // for the last op of each thread: a worker counts an op just after completing it, so right after the
        // example's waitForAll a thread may not have counted its last one yet. (This graph, over two devices
        // and the host, replays op by op: each op counts one.)
        Matcher group = Pattern.compile("\\n  (depengine-perdevice-\\S+) +(\\d+) +(\\d+) ").matcher(out);
        long completed = 0;
        long threads = 0;
        Set<String> groups = new HashSet<>();
        while (group.find()) {
            groups.add(group.group(1));
            threads += Long.parseLong(group.group(2));
            completed += Long.parseLong(group.group(3));
        }
        assertTrue(groups.contains("depengine-perdevice-cpu0-worker") && groups.contains("depengine-perdevice-cpu-priority"),
                out);
        assertTrue(completed <= pushed && completed >= pushed - threads, pushed + " pushed, " + completed
                + " completed by " + threads + " threads\n" + out);
        assertTrue(out.contains("  kvstore: "), out);
    }

    @Test
    void badInputIsRefusedWithAClearMessage() throws Exception {
        ModulePathLauncher.Result twice = ModulePathLauncher.launch(List.of(), MAIN, "--devices", "cpu:0,cpu:0");
        assertNotEquals(0, twice.exitCode());
        assertTrue(twice.output().contains("--devices lists cpu:0 twice"), twice.output());

        ModulePathLauncher.Result workers = ModulePathLauncher.launch(List.of(), MAIN, "--workers", "2");
        assertEquals(2, workers.exitCode(), workers.output());
        assertTrue(workers.output().contains("--workers 2 needs --kvstore dist_sync or dist_async"), workers.output());
        ModulePathLauncher.Result rank = ModulePathLauncher.launch(List.of(), MAIN, "--kvstore", "dist_sync",
                "--members", "127.0.0.1:5801,127.0.0.1:5802", "--rank", "2", "--job", "j");
        assertEquals(2, rank.exitCode(), rank.output());
        assertEquals("MultiDeviceTraining: --rank 2 is out of range: give an integer in 0..1 (--members lists 2 workers)",
                rank.output().strip());
        ModulePathLauncher.Result port = ModulePathLauncher.launch(List.of(), MAIN, "--metrics-port", "9400");
        assertEquals(2, port.exitCode(), port.output());
        assertTrue(port.output().contains("--metrics-port 9400 needs --metrics"), port.output());
        ModulePathLauncher.Result type = ModulePathLauncher.launch(List.of(), MAIN, "--kvstore", "nccl");
        assertEquals(2, type.exitCode(), type.output());
        assertTrue(type.output().contains("--kvstore nccl: use local, dist_sync or dist_async"), type.output());

        // Elastic jobs (ElasticOptionsTest has every combination): dist_sync only; rank 0 launches and prints.
        ModulePathLauncher.Result elastic = ModulePathLauncher.launch(List.of(), MAIN, "--elastic");
        assertEquals(2, elastic.exitCode(), elastic.output());
        assertEquals("MultiDeviceTraining: --elastic needs --kvstore dist_sync (elastic jobs are built for dist_sync with "
                + "updateOn=worker), not local", elastic.output().strip());
        ModulePathLauncher.Result kill0 = ModulePathLauncher.launch(List.of(), MAIN, "--kvstore", "dist_sync", "--workers",
                "3", "--elastic", "--kill", "0@5");
        assertEquals(2, kill0.exitCode(), kill0.output());
        assertTrue(kill0.output().contains("--kill 0@5: rank 0 is this process, which starts the others, prints and "
                + "writes the trace; kill one of ranks 1..2"), kill0.output());
        ModulePathLauncher.Result late = ModulePathLauncher.launch(List.of(), MAIN, "--kvstore", "dist_sync", "--workers",
                "3", "--elastic", "--kill", "1@40");
        assertEquals(2, late.exitCode(), late.output());
        assertTrue(late.output().contains("--kill 1@40: epoch 40 is out of range: give an integer in 1..30"), late.output());

        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "1.0,2.0,0\n1.0,oops,1\n");
        ModulePathLauncher.Result csv = ModulePathLauncher.launch(List.of(), MAIN, "--data", bad.toString());
        assertNotEquals(0, csv.exitCode());
        assertTrue(csv.output().contains(bad + ":2"), csv.output());
    }
}
