package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the example the way the README does: a separate JVM on the module path (so engines and the CPU
 * device are found through module-info {@code provides}, not META-INF/services), and checks its output.
 */
class DependencyBasicsTest {

    static String runOnModulePath(String mainClass, String... args) throws IOException, InterruptedException {
        Path target = Path.of("target");
        List<String> path = new ArrayList<>();
        path.add(target.resolve("classes").toString());
        try (Stream<Path> jars = Files.list(target.resolve("lib"))) {
            path.addAll(jars.map(Path::toString).sorted().collect(Collectors.toList()));
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--module-path");
        cmd.add(String.join(File.pathSeparator, path));
        cmd.add("-m");
        cmd.add("org.depengine.examples/" + mainClass);
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the example did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
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

    @org.junit.jupiter.api.Test
    void helpExplainsTheExample() throws Exception {
        assertTrue(runOnModulePath("org.depengine.examples.DependencyBasics", "--help").contains("usage: DependencyBasics"));
    }
}
