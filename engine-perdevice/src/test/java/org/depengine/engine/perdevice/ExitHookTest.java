package org.depengine.engine.perdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The exit hook of {@code Engine.get()}'s engine: pending work is reported, and never blocks JVM exit. */
class ExitHookTest {
    @Test
    void aNeverCompletingOpDoesNotKeepTheJvmFromExiting() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "-Ddepengine.exitTimeoutMs=300", ExitWithStuckOp.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM did not exit");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("still pending") && out.contains("1 op(s)"), out);
    }
}
