package org.depengine.examples;

import static org.depengine.examples.DependencyBasicsTest.runOnModulePath;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs OperatorReuse on the module path: both ways ran every push and summed right; costs are printed, not judged. */
class OperatorReuseTest {
    @ParameterizedTest
    @ValueSource(strings = {"perdevice", "pooled", "naive"})
    void bothWaysRunEveryPushAndPrintTheirCost(String engine) throws Exception {
        String out = runOnModulePath("org.depengine.examples.OperatorReuse", "--engine", engine, "--ops", "3000", "--rounds", "3");
        assertTrue(out.contains("engine: " + engine), out);
        // 2 warm-up rounds + 3 measured, 3000 pushes each
        assertTrue(out.contains("newOperator + push  : ran 15000 of 15000 times, sums correct: yes"), out);
        assertTrue(out.contains("pushAsync each time : ran 15000 of 15000 times, sums correct: yes"), out);
        for (String way : new String[] {"newOperator \\+ push", "pushAsync each time"}) {
            assertTrue(Pattern.compile(way + "\\s*:\\s+\\d+ ns to push,\\s+\\d+ ns to push and run").matcher(out).find(), out);
        }
        assertTrue(Pattern.compile("reusing the operator (saves|adds) \\d+% of the push cost").matcher(out).find(), out);
    }
}
