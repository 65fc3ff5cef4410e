package org.depengine.examples;

import static org.depengine.examples.DependencyBasicsTest.runOnModulePath;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs CustomDevicePlugin on the module path, where the plugin jar (examples/custom-device) sits in
 * target/lib like any third-party jar, and checks that the ops ran on the plugin's lanes.
 */
class CustomDevicePluginTest {
    @ParameterizedTest
    @ValueSource(strings = {"perdevice", "pooled", "naive"})
    void opsRunOnThePluginsStreamsAndThreads(String engine) throws Exception {
        String out = runOnModulePath("org.depengine.examples.CustomDevicePlugin", "--engine", engine, "--batches", "4",
                "--latency-us", "300");
        assertTrue(out.contains("engine: " + engine), out);
        assertTrue(Pattern.compile("device types found: \\[.*sim.*]").matcher(out).find(), out);
        assertTrue(out.contains("ops pushed to sim:0: 12; device commands run by the plugin: 12"), out);
        // Each kind of op ran on a lane thread of the plugin, named after its stream.
        for (String kind : new String[] {"host-to-device", "compute", "device-to-host"}) {
            assertTrue(Pattern.compile("device work ran on the plugin's lanes: .*sim0-" + kind + "#\\d+ \\(sim:0/" + kind
                    + "#\\d+\\) x\\d").matcher(out).find(), kind + "\n" + out);
        }
        // The functions that launched them ran on engine threads (or the pusher, for naive), never on a lane.
        Matcher launches = Pattern.compile("op functions \\(the launches\\) ran on: (.*)").matcher(out);
        assertTrue(launches.find(), out);
        for (String entry : launches.group(1).split(", ")) {
            assertFalse(entry.startsWith("sim0-"), entry + " is a lane of the plugin\n" + out);
        }
        assertTrue(out.contains("results: 4 of 4 batches correct"), out);
    }
}
