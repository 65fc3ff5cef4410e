package org.depengine.examples;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every example answers --help with its usage, and refuses an unknown argument by name. */
class HelpTest {
    @ParameterizedTest
    @ValueSource(strings = {"MultiDeviceTraining", "CopyComputeOverlap", "OperatorReuse", "CustomDevicePlugin",
            "DependencyBasics", "MemoryRecycling", "RandomNumbers", "AsyncCompletion"})
    void helpGivesTheUsage(String example) throws Exception {
        String out = DependencyBasicsTest.runOnModulePath("org.depengine.examples." + example, "--help");
        assertTrue(out.startsWith("usage: " + example + " [--engine naive|pooled|perdevice]"), out);
    }

    @Test
    void anUnknownArgumentIsNamed() throws Exception {
        ModulePathLauncher.Result r = ModulePathLauncher.launch(List.of(), "org.depengine.examples.OperatorReuse", "--fast");
        assertNotEquals(0, r.exitCode());
        assertTrue(r.output().contains("unknown argument '--fast'; try --help"), r.output());
    }
}
