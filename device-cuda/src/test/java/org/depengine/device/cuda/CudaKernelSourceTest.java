package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The primitives' CUDA C++ source compiles and defines every kernel the device looks up, checked with
 * {@code nvcc --ptx} where the CUDA toolkit is installed (no GPU needed). NVRTC, which compiles the same
 * source at run time, shares nvcc's front end.
 */
class CudaKernelSourceTest {
    @Test
    void theKernelSourceCompilesToPtxWithEveryKernel(@TempDir Path dir) throws Exception {
        Optional<Path> nvcc = nvcc();
        Requirements.assume("nvcc", nvcc.isPresent(), "needs nvcc (the CUDA toolkit) on the PATH or in /usr/local/cuda/bin");
        Path source = dir.resolve(PrimitiveKernels.PROGRAM_NAME);
        Files.writeString(source, PrimitiveKernels.SOURCE);
        Path ptx = dir.resolve("out.ptx");
        Process p = new ProcessBuilder(nvcc.get().toString(), "--ptx", "-o", ptx.toString(), source.toString())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "nvcc did not finish");
        assertEquals(0, p.exitValue(), "nvcc failed:\n" + output);
        String text = Files.readString(ptx);
        for (String name : PrimitiveKernels.NAMES) {
            assertTrue(text.contains(".entry " + name + "("), "kernel " + name + " missing from the PTX");
        }
    }

    private static Optional<Path> nvcc() {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.concat(Stream.of(path.split(File.pathSeparator)), Stream.of("/usr/local/cuda/bin"))
                .filter(s -> !s.isEmpty()).map(s -> Path.of(s, "nvcc")).filter(Files::isExecutable).findFirst();
    }
}
