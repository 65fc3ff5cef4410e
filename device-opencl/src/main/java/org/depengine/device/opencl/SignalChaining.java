package org.depengine.device.opencl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Whether the JVM's signal-chaining library ({@code libjsig}) is loaded in this process.
 *
 * <p>Why it matters: PoCL (and the LLVM inside it) install their own signal handlers when OpenCL is
 * first used, replacing the JVM's. The JVM raises SIGSEGV on purpose (implicit null checks, safepoint
 * polls), so its next such trap then kills the process, with no {@code hs_err} file. Preloading
 * {@code libjsig} ({@code LD_PRELOAD=$JAVA_HOME/lib/libjsig.so}) keeps the JVM's handlers first and
 * chains the library's behind them. Observed on 2026-11-26 with PoCL 3 on Debian: 3 of 14 short JVMs
 * that probed OpenCL died with SIGSEGV, none of 12 with the library preloaded.
 */
final class SignalChaining {
    /** The process's memory map, where every loaded shared library is listed (Linux). */
    static final Path PROC_MAPS = Path.of("/proc/self/maps");

    private SignalChaining() {
    }

    /**
     * Whether libjsig is mapped into this process, read from {@code maps}; empty when that cannot be
     * told (no such file: not Linux, or no /proc).
     */
    static Optional<Boolean> loaded(Path maps) {
        if (!Files.isReadable(maps)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(maps, StandardCharsets.ISO_8859_1)) {
            return Optional.of(lines.anyMatch(l -> l.endsWith("/libjsig.so")));
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /** This JDK's signal-chaining library ({@code $JAVA_HOME/lib/libjsig.so}; it may not exist). */
    static Path library() {
        return Path.of(System.getProperty("java.home"), "lib", "libjsig.so");
    }

    /** The advice a warning gives: how to start the JVM with the library preloaded. */
    static String advice() {
        return "start the JVM with LD_PRELOAD=" + library()
                + " (the JVM's signal-chaining library; see docs/guide/setup.md, \"OpenCL on PoCL\")";
    }
}
