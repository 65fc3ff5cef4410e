package org.depengine.examples;

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

/**
 * Launches an example the way the README does: a separate JVM on the module path built from
 * target/classes and target/lib, so engines and devices (the plugin's included) are found through
 * module-info {@code provides}, not META-INF/services.
 */
final class ModulePathLauncher {
    /** What a launched example printed (stdout and stderr together) and its exit status. */
    record Result(int exitCode, String output) {
    }

    private ModulePathLauncher() {
    }

    static Result launch(List<String> jvmOptions, String mainClass, String... args) throws IOException, InterruptedException {
        return launch(jvmOptions, 120, mainClass, args);
    }

    /** As {@link #launch(List, String, String...)}, for an example that may take up to {@code seconds}. */
    static Result launch(List<String> jvmOptions, long seconds, String mainClass, String... args)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command(jvmOptions, mainClass, args)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "the example did not finish");
        return new Result(p.exitValue(), out);
    }

    /**
     * The command line that runs {@code mainClass} with {@code args}: this JVM's {@code java}, the
     * module path of target/classes and target/lib (absolute, so that it holds in any working directory).
     */
    static List<String> command(List<String> jvmOptions, String mainClass, String... args) throws IOException {
        Path target = Path.of("target").toAbsolutePath();
        List<String> path = new ArrayList<>();
        path.add(target.resolve("classes").toString());
        try (Stream<Path> jars = Files.list(target.resolve("lib"))) {
            path.addAll(jars.map(Path::toString).sorted().collect(Collectors.toList()));
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=jocl,jcuda,org.depengine.device.cuda"); // as run-example does
        cmd.addAll(jvmOptions);
        cmd.add("--module-path");
        cmd.add(String.join(File.pathSeparator, path));
        cmd.add("-m");
        cmd.add("org.depengine.examples/" + mainClass);
        cmd.addAll(List.of(args));
        return cmd;
    }
}
