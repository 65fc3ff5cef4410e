package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.depengine.api.device.Availability;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real probe, in this JVM (class path): whatever the machine, it answers without throwing, caches
 * the answer, and explains an unavailability. Without a driver the answer must be about libcuda.so.1,
 * proving that JCuda's own natives were found and loaded up to the point where the driver is needed.
 */
class CudaProbeOnThisMachineTest {
    private static final Logger LOG = LoggerFactory.getLogger(CudaProbeOnThisMachineTest.class);

    @Test
    void probeAnswersAndExplains() {
        DeviceProvider p = Devices.provider("cuda");
        Availability a = p.probe();
        assertSame(a, p.probe());
        LOG.info("CUDA on this machine (class path, in-process): {}", a);
        if (a.available()) {
            assertTrue(p.deviceCount() > 0);
            return;
        }
        assertFalse(a.reason().isBlank());
        assertEquals(0, p.deviceCount());
        assertThrows(IllegalStateException.class, () -> p.device(0));
        if (!hasDriverLibrary()) {
            assertEquals("libcuda.so.1 not found (no NVIDIA driver installed on this machine)", a.reason());
        }
        // The JCuda library itself was extracted where JCuda's loader looks for it.
        assertTrue(Files.isRegularFile(JCudaNatives.jcudaTempFile(JCudaNatives.fileName("JCudaDriver"))));
    }

    private static boolean hasDriverLibrary() {
        for (String dir : new String[] {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/cuda/lib64",
                "/usr/lib/wsl/lib"}) {
            if (Files.exists(Path.of(dir, "libcuda.so.1"))) {
                return true;
            }
        }
        return System.getenv("LD_LIBRARY_PATH") != null && !System.getenv("LD_LIBRARY_PATH").isBlank();
    }
}
