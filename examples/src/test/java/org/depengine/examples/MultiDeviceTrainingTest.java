package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Devices;
import org.depengine.testkit.Json;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs MultiDeviceTraining on the module path and checks what it learned: at least 95 % accuracy on the
 * default spiral, and the same loss curve under every engine (the host sums gradients in device order,
 * so no engine can change the arithmetic).
 */
class MultiDeviceTrainingTest {
    private static final String MAIN = "org.depengine.examples.MultiDeviceTraining";
    private static final Pattern EPOCH = Pattern.compile("epoch +(\\d+)/(\\d+) \\[#+] loss (\\d+\\.\\d+) +acc +(\\d+\\.\\d)%");
    private static final Pattern FINAL = Pattern.compile("final accuracy on all (\\d+) samples: (\\d+\\.\\d)%");
    private static final double SAME_LOSS = 2e-5; // printed with 5 decimals

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
        List<Double> losses = new ArrayList<>();
        Matcher m = EPOCH.matcher(out);
        while (m.find()) {
            assertEquals(losses.size() + 1, Integer.parseInt(m.group(1)), out);
            losses.add(Double.parseDouble(m.group(3)));
        }
        Matcher f = FINAL.matcher(out);
        assertTrue(f.find(), out);
        assertTrue(Pattern.compile("time per epoch: \\d+\\.\\d ms").matcher(out).find(), out);
        assertTrue(out.contains("trace: " + trace.toAbsolutePath()), out);
        return new Run(losses, Double.parseDouble(f.group(2)), out);
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
                "fc1 backward", "copy fc2 gradient to host", "copy fc1 gradient to host", "sum gradients, SGD step fc1",
                "sum gradients, SGD step fc2", "copy fc1 weights to device", "copy fc2 weights to device", "metrics")) {
            assertTrue(names.contains(op), "no '" + op + "' in the trace; names: " + names);
        }
    }

    @Test
    void trainsOnOpenClAndCpuTogether() throws Exception {
        Availability a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL runtime (CI installs PoCL)");
        Run perdevice = train("perdevice", "opencl:0,cpu:0", dir.resolve("ocl.json"));
        assertTrue(perdevice.accuracy >= 95.0, perdevice.out);
        assertTrue(perdevice.out.contains("host ops (gradient sums, SGD) on cpu:1"), perdevice.out);
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
    void badInputIsRefusedWithAClearMessage() throws Exception {
        ModulePathLauncher.Result twice = ModulePathLauncher.launch(List.of(), MAIN, "--devices", "cpu:0,cpu:0");
        assertNotEquals(0, twice.exitCode());
        assertTrue(twice.output().contains("--devices lists cpu:0 twice"), twice.output());

        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "1.0,2.0,0\n1.0,oops,1\n");
        ModulePathLauncher.Result csv = ModulePathLauncher.launch(List.of(), MAIN, "--data", bad.toString());
        assertNotEquals(0, csv.exitCode());
        assertTrue(csv.output().contains(bad + ":2"), csv.output());
    }
}
