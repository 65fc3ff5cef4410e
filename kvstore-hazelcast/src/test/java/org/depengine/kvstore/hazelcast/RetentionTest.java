package org.depengine.kvstore.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing is kept after a call completes (pulled arrays, timeout tasks, round slots, listeners): with a
 * call timeout of two minutes, {@link RetentionProgram}'s workers pull a 1 MiB key round after round in a
 * 256 MiB heap, and the heap in use after a GC stays flat. Before the fix every pulled array was held
 * by its timeout task for the whole timeout, and 300 rounds (600 pulls) ran out of memory. The long
 * form ({@code -Ddepengine.test.long=true}) runs 10,000 rounds.
 */
class RetentionTest {
    private static final int MIB_OF_FLOATS = 1 << 18;

    @Test
    void pulledArraysAreReleasedWhenThePullCompletesNotAtTheTimeout() throws Exception {
        run(300, 240);
    }

    // The child has 1,800 s (212 s on a quiet machine); the suite's 5-minute default would cut it short.
    @Test
    @Timeout(value = 31, unit = TimeUnit.MINUTES)
    void tenThousandRoundsOfAOneMibKeyKeepTheHeapFlat() throws Exception {
        assumeTrue(Boolean.getBoolean("depengine.test.long"), "the long form runs with -Ddepengine.test.long=true");
        run(10_000, 1800);
    }

    private static void run(int rounds, int seconds) throws Exception {
        List<String> cmd = List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
                "-XX:+ExitOnOutOfMemoryError", "-Dhazelcast.logging.type=slf4j",
                "-Dorg.slf4j.simpleLogger.log.com.hazelcast=warn", "-cp", System.getProperty("java.class.path"),
                RetentionProgram.class.getName(), Integer.toString(rounds), Integer.toString(MIB_OF_FLOATS), "120000", "32");
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(child.getInputStream()));
        try {
            if (!child.waitFor(seconds, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                throw new AssertionError("the program did not finish " + rounds + " rounds in " + seconds + " s:\n"
                        + output.get(10, TimeUnit.SECONDS));
            }
            String out = output.get(10, TimeUnit.SECONDS);
            assertEquals(0, child.exitValue(), "the heap grew (exit 1) or ran out (OutOfMemoryError):\n" + out);
            assertTrue(out.contains("heap in use after GC"), out);
            System.out.println(out.lines().filter(l -> l.startsWith("heap in use")).findFirst().orElse(out));
        } finally {
            child.destroyForcibly();
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }
}
