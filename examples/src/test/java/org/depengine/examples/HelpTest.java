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
            "DependencyBasics", "MemoryRecycling", "RandomNumbers", "AsyncCompletion"})
    void helpGivesTheUsage(String example) throws Exception {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), "org.depengine.examples." + example, "--help");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().regionMatches(true, 0, "usage: " + example + " ", 0, example.length() + 8), r.output());
        assertTrue(r.output().contains("--engine"), r.output());
    }

    @Test
    void anUnknownOptionIsNamedInOneLine() throws Exception {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), "org.depengine.examples.DependencyBasics", "--fast");
        assertEquals(Cli.USAGE_ERROR, r.exitCode(), r.output());
        assertEquals("DependencyBasics: Unknown option: '--fast'; try --help", r.output().strip());
    }
}
