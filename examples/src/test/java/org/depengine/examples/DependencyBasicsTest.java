package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the example the way the README does: a separate JVM on the module path (so engines and the CPU
 * device are found through module-info {@code provides}, not META-INF/services), and checks its output.
 */
class DependencyBasicsTest {

    static String runOnModulePath(String mainClass, String... args) throws IOException, InterruptedException {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), mainClass, args);
        assertEquals(0, r.exitCode(), r.output());
        return r.output();
    }

    @ParameterizedTest
    @ValueSource(strings = {"perdevice", "pooled", "naive"})
    void printsDAndShowsWhetherBAndCOverlapped(String engine) throws Exception {
        String out = runOnModulePath("org.depengine.examples.DependencyBasics", "--engine", engine);
        assertTrue(out.contains("engine: " + engine), out);
        assertTrue(out.contains("D = 12"), out);
        if (engine.equals("naive")) {
            assertTrue(out.contains("one after the other"), out);
        } else {
            assertTrue(out.contains("B and C ran at the same time"), out);
        }
    }
}
