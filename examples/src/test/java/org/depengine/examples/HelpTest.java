package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every example answers --help with its usage, and refuses a bad argument in one line with exit status 2. */
class HelpTest {
    @ParameterizedTest
    @ValueSource(strings = {"MultiDeviceTraining", "CopyComputeOverlap", "OperatorReuse", "CustomDevicePlugin",
            "DependencyBasics", "MemoryRecycling", "RandomNumbers", "AsyncCompletion", "KVStoreModelStep", "ElasticSteps"})
    void helpGivesTheUsage(String example) throws Exception {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), "org.depengine.examples." + example, "--help");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().regionMatches(true, 0, "usage: " + example + " ", 0, example.length() + 8), r.output());
        assertTrue(r.output().contains("--engine"), r.output());
        // The description is one paragraph wrapped at the usage width: only its last line may be short.
        List<String> description = description(r.output());
        assertTrue(!description.isEmpty(), r.output());
        for (String line : description.subList(0, description.size() - 1)) {
            assertTrue(line.length() > 60, "a description line broken mid-paragraph: '" + line + "'\n" + r.output());
        }
    }

    /** The lines between the synopsis (its first line and the indented ones after it) and the first option. */
    private static List<String> description(String help) {
        List<String> lines = help.lines().toList();
        int from = 1;
        while (from < lines.size() && lines.get(from).startsWith(" ")) {
            from++;
        }
        int to = from;
        while (to < lines.size() && !lines.get(to).stripLeading().startsWith("-")) {
            to++;
        }
        return lines.subList(from, to);
    }

    @Test
    void anUnknownOptionIsNamedInOneLine() throws Exception {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), "org.depengine.examples.DependencyBasics", "--fast");
        assertEquals(Cli.USAGE_ERROR, r.exitCode(), r.output());
        assertEquals("DependencyBasics: Unknown option: '--fast'; try --help", r.output().strip());
    }

    @Test
    void runExampleListsTheExamplesAndRefusesAnythingElse() throws Exception {
        Result list = script("--list");
        assertEquals(0, list.code(), list.out());
        assertEquals(List.of("MultiDeviceTraining", "DependencyBasics", "CopyComputeOverlap", "OperatorReuse",
                "CustomDevicePlugin", "MemoryRecycling", "RandomNumbers", "AsyncCompletion", "KVStoreModelStep", "ElasticSteps"), list.out().strip().lines().toList());
        Result helper = script("Args");
        assertEquals(2, helper.code(), helper.out());
        assertTrue(helper.out().startsWith("run-example: no example named 'Args'"), helper.out());
        Result help = script("--help");
        assertEquals(0, help.code(), help.out());
        assertTrue(help.out().startsWith("usage: ./run-example NAME"), help.out());
    }

    private record Result(int code, String out) {
    }

    /** Runs the repository's run-example script (bash) with {@code args}; stdout and stderr together. */
    private static Result script(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", "../run-example"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "run-example did not finish");
        return new Result(p.exitValue(), out);
    }
}
