package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernels' shipped PTX is the one built from the shipped source, and defines every kernel the device
 * looks up (checked on every build); the source compiles with {@code nvcc --ptx} where the CUDA toolkit
 * is installed (no GPU needed). NVRTC, which compiles the same source where the driver refuses the PTX,
 * shares nvcc's front end.
 */
class CudaKernelSourceTest {
    @Test
    void theShippedPtxWasBuiltFromTheShippedSource() throws Exception {
        String firstLine = PrimitiveKernels.ptx().lines().findFirst().orElse("");
        assertTrue(firstLine.startsWith(PrimitiveKernels.PTX_SOURCE_HASH_PREFIX), "first line: " + firstLine);
        String recorded = firstLine.substring(PrimitiveKernels.PTX_SOURCE_HASH_PREFIX.length()).split("[ ,]")[0];
        byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest(PrimitiveKernels.source().getBytes(StandardCharsets.UTF_8));
        assertEquals(HexFormat.of().formatHex(digest), recorded, PrimitiveKernels.PROGRAM_NAME
                + " changed after " + PrimitiveKernels.PTX_NAME + " was built: run scripts/cuda-ptx (it needs nvcc; "
                + "docs/guide/gpu-check.md says how to run it on the device machine)");
    }

    @Test
    void theShippedPtxDefinesEveryKernel() {
        assertEveryKernelIn(PrimitiveKernels.ptx());
    }

    @Test
    void theKernelSourceCompilesToPtxWithEveryKernel(@TempDir Path dir) throws Exception {
        Optional<Path> nvcc = nvcc();
        Requirements.assume("nvcc", nvcc.isPresent(), "needs nvcc (the CUDA toolkit) on the PATH or in /usr/local/cuda/bin");
        Path source = dir.resolve(PrimitiveKernels.PROGRAM_NAME);
        Files.writeString(source, PrimitiveKernels.source());
        Path ptx = dir.resolve("out.ptx");
        Process p = new ProcessBuilder(nvcc.get().toString(), "--ptx", "-o", ptx.toString(), source.toString())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "nvcc did not finish");
        assertEquals(0, p.exitValue(), "nvcc failed:\n" + output);
        assertEveryKernelIn(Files.readString(ptx));
    }

    private static void assertEveryKernelIn(String ptx) {
        for (String name : PrimitiveKernels.NAMES) {
            assertTrue(ptx.contains(".entry " + name + "("), "kernel " + name + " missing from the PTX");
        }
    }

    private static Optional<Path> nvcc() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(Stream.of(path.split(File.pathSeparator)), Stream.of("/usr/local/cuda/bin"))
                .filter(s -> !s.isEmpty()).map(s -> Path.of(s, "nvcc")).filter(Files::isExecutable).findFirst();
    }
}
