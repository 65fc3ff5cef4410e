package org.depengine.examples;

import static org.depengine.examples.DependencyBasicsTest.runOnModulePath;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Devices;
import org.depengine.testkit.Json;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs CopyComputeOverlap on the module path and checks the shape of what it prints, every batch's
 * result, and the trace. The overlap it measures is printed, never asserted: it depends on the machine.
 */
class CopyComputeOverlapTest {
    private static final String MAIN = "org.depengine.examples.CopyComputeOverlap";

    @TempDir
    Path dir;

    private void runOn(String device, String engine) throws Exception {
        Path trace = dir.resolve(device.replace(':', '-') + "-" + engine + ".json");
        String out = runOnModulePath(MAIN, "--engine", engine, "--device", device, "--batches", "12", "--floats", "65536",
                "--trace", trace.toString());
        assertTrue(out.contains("device " + device + " (") && out.contains("engine " + engine), out);
        assertTrue(Pattern.compile("lane busy: copy in \\d+\\.\\d ms, compute \\d+\\.\\d ms, copy out \\d+\\.\\d ms; sum \\d+\\.\\d ms")
                .matcher(out).find(), out);
        assertTrue(Pattern.compile("device busy \\(any lane\\): \\d+\\.\\d ms; wall, first push to last result: \\d+\\.\\d ms")
                .matcher(out).find(), out);
        assertTrue(Pattern.compile("overlap: -?\\d+\\.\\d ms saved of the \\d+\\.\\d ms that overlapping could save \\(-?\\d+%\\)")
                .matcher(out).find(), out);
        assertTrue(out.contains("results: 12 of 12 batches correct"), out);
        assertTrue(out.contains("trace: " + trace.toAbsolutePath()), out);
        assertTraceHasTheThreeLanes(trace);
    }

    @SuppressWarnings("unchecked")
    private static void assertTraceHasTheThreeLanes(Path trace) throws Exception {
        assertTrue(Files.exists(trace), trace + " was not written");
        Map<String, Object> json = (Map<String, Object>) Json.parse(Files.readString(trace));
        Set<String> names = new HashSet<>();
        for (Object e : (List<Object>) json.get("traceEvents")) {
            Object name = ((Map<String, Object>) e).get("name");
            if (name instanceof String) {
                names.add((String) name);
            }
        }
        assertTrue(names.containsAll(List.of("copy in", "compute", "copy out", "produce", "check")), names.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"perdevice", "pooled", "naive"})
    void onOpenCl(String engine) throws Exception {
        Availability a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL runtime (CI installs PoCL)");
        runOn("opencl:0", engine);
    }

    @Test
    void onTheCpu() throws Exception {
        runOn("cpu:0", "perdevice");
    }
}
