package org.depengine.examples;

import static org.depengine.examples.DependencyBasicsTest.runOnModulePath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs each further example on the module path and checks what it prints. */
class MoreExamplesTest {

    @ParameterizedTest
    @ValueSource(strings = {"perdevice", "naive"})
    void memoryIsFreedOnlyAfterBothReads(String engine) throws Exception {
        String out = runOnModulePath("org.depengine.examples.MemoryRecycling", "--engine", engine);
        assertTrue(out.contains("freeing the buffer after 2 of 2 reads"), out);
        assertTrue(out.indexOf("read 1 done") < out.indexOf("freeing") && out.indexOf("read 2 done") < out.indexOf("freeing"), out);
    }

    private static String checksum(String out) {
        Matcher m = Pattern.compile("checksum: (-?\\d+)").matcher(out);
        assertTrue(m.find(), out);
        return m.group(1);
    }

    @org.junit.jupiter.api.Test
    void randomDrawsAreTheSameUnderEveryEngine() throws Exception {
        String naive = checksum(runOnModulePath("org.depengine.examples.RandomNumbers", "--engine", "naive"));
        assertEquals(naive, checksum(runOnModulePath("org.depengine.examples.RandomNumbers", "--engine", "pooled")));
        assertEquals(naive, checksum(runOnModulePath("org.depengine.examples.RandomNumbers", "--engine", "perdevice")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"perdevice", "naive"})
    void asyncCompletionFeedsItsReader(String engine) throws Exception {
        String out = runOnModulePath("org.depengine.examples.AsyncCompletion", "--engine", engine);
        assertTrue(out.contains("async result 500500"), out);
        assertTrue(out.contains("doubled by the dependent op: 1001000"), out);
        // It completes from the program's own worker thread, not from the thread that ran its function.
        assertTrue(out.contains("async result 500500 completed on thread sum-worker"), out);
        assertFalse(out.contains("function ran on thread sum-worker"), out);
    }
}
