package org.depengine.gpucheck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.depengine.api.device.Availability;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;

/**
 * Prints, as {@code key=value} lines, what the {@code cuda} provider found: the module it and JCuda
 * were loaded from, the probe's answer and reason, the devices, and the JCuda libraries extracted to
 * {@code java.io.tmpdir}. Exits with 0 when the module path and the natives worked (CUDA available, or
 * unavailable for a reason about the driver or the GPU), 1 when the layout itself is broken.
 */
public final class CudaProbe {
    private CudaProbe() {
    }

    /** Runs the probe; takes no arguments. */
    public static void main(String[] args) throws IOException {
        DeviceProvider p = Devices.provider("cuda");
        Availability a = p.probe();
        String providerModule = String.valueOf(p.getClass().getModule().getName());
        String jcudaModule = ModuleLayer.boot().findModule("jcuda").map(Module::getName).orElse("none");
        System.out.println("provider-module=" + providerModule);
        System.out.println("jcuda-module=" + jcudaModule);
        System.out.println("cuda=" + (a.available() ? "available" : "unavailable"));
        System.out.println("reason=" + (a.available() ? "" : a.reason()));
        System.out.println("devices=" + p.deviceCount());
        for (int i = 0; i < p.deviceCount(); i++) {
            System.out.println("device." + i + "=" + p.device(i).description());
        }
        System.out.println("natives=" + extractedNatives());
        boolean named = providerModule.equals("org.depengine.device.cuda") && jcudaModule.equals("jcuda");
        boolean nativesFound = a.available() || !a.reason().startsWith("JCuda native library");
        System.exit(named && nativesFound ? 0 : 1);
    }

    /** The JCuda libraries in java.io.tmpdir, where the provider extracts them before JCuda loads them. */
    private static String extractedNatives() throws IOException {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("libJCu")).sorted()
                    .collect(Collectors.joining(","));
        }
    }
}
