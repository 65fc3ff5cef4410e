package org.depengine.device.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SignalChainingTest {

    @Test
    void findsTheLibraryInAMemoryMap(@TempDir Path dir) throws Exception {
        Path with = Files.writeString(dir.resolve("with"), String.join("\n",
                "7f00-7f01 r-xp 00000000 08:01 42 /usr/lib/jvm/jdk/lib/server/libjvm.so",
                "7f02-7f03 r-xp 00000000 08:01 43 /usr/lib/jvm/jdk/lib/libjsig.so",
                "7ffc-7ffd rw-p 00000000 00:00 0 [stack]"));
        Path without = Files.writeString(dir.resolve("without"), String.join("\n",
                "7f00-7f01 r-xp 00000000 08:01 42 /usr/lib/jvm/jdk/lib/server/libjvm.so",
                "7f04-7f05 r-xp 00000000 08:01 44 /usr/lib/x86_64-linux-gnu/libpocl.so.2.11.0",
                "7f06-7f07 r--p 00000000 08:01 45 /tmp/libjsig.so.notes.txt"));
        assertEquals(Optional.of(true), SignalChaining.loaded(with));
        assertEquals(Optional.of(false), SignalChaining.loaded(without));
        assertEquals(Optional.empty(), SignalChaining.loaded(dir.resolve("no-such-maps")));
    }

    /**
     * The build preloads the library into every test JVM on Linux (the parent pom's
     * {@code linux-signal-chaining} profile), so that PoCL's signal handlers cannot crash them.
     */
    @Test
    void testJvmsRunWithTheLibraryPreloaded() {
        Optional<Boolean> loaded = SignalChaining.loaded(SignalChaining.PROC_MAPS);
        assumeTrue(loaded.isPresent(), "no /proc/self/maps: not Linux, where the build preloads libjsig");
        assumeTrue(Files.exists(SignalChaining.library()), "this JDK has no lib/libjsig.so");
        assertTrue(loaded.get(), "libjsig.so is not loaded in this test JVM: " + SignalChaining.advice());
    }

    @Test
    void theAdviceNamesThisJdksLibrary() {
        assertTrue(SignalChaining.advice().contains("LD_PRELOAD=" + System.getProperty("java.home")), SignalChaining.advice());
        assertTrue(SignalChaining.library().endsWith(Path.of("lib", "libjsig.so")), SignalChaining.library().toString());
    }
}
