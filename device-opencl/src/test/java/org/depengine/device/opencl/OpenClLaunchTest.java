package org.depengine.device.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.depengine.api.device.Availability;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;
import org.depengine.device.opencl.launch.ProbeMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.depengine.testkit.Requirements;

/**
 * Child JVMs: the provider on the module path (JOCL as automatic module {@code jocl}), and a machine
 * whose ICD loader finds no driver ({@code OCL_ICD_VENDORS} pointing at an empty directory), where the
 * probe must turn the CL error into a reason.
 */
class OpenClLaunchTest {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClLaunchTest.class);

    private static List<Path> runtimePath() throws Exception {
        return List.of(codeSource(OpenClDeviceProvider.class), codeSource(DeviceProvider.class),
                codeSource(org.depengine.device.common.AsyncStream.class), codeSource(org.jocl.CL.class), codeSource(LoggerFactory.class),
                codeSource(Class.forName("org.slf4j.simple.SimpleLogger")));
    }

    @Test
    void onTheModulePathThePlatformIsFound() throws Exception {
        Availability here = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", here, "needs an OpenCL platform");
        Map<String, String> out = run(List.of("--module-path", join(runtimePath()), "--add-modules",
                "org.depengine.device.opencl", "-cp", codeSource(ProbeMain.class).toString(), ProbeMain.class.getName()),
                Map.of());
        assertEquals("org.depengine.device.opencl", out.get("module"));
        assertEquals("available", out.get("probe"));
        assertEquals(String.valueOf(Devices.provider("opencl").deviceCount()), out.get("count"));
        LOG.info("OpenCL on the module path: {}, opencl:0 = {}", out.get("probe"), out.get("device0"));
    }

    @Test
    void noDriverRegisteredIsAReasonNotACrash(@TempDir Path empty) throws Exception {
        List<Path> cp = new ArrayList<>(runtimePath());
        cp.add(codeSource(ProbeMain.class));
        Map<String, String> out = run(List.of("-cp", join(cp), ProbeMain.class.getName()),
                Map.of("OCL_ICD_VENDORS", empty.toString(), "OPENCL_VENDOR_PATH", empty.toString()));
        assertEquals("null", out.get("module"));
        String probe = out.get("probe");
        assertTrue(probe.startsWith("unavailable: "), probe);
        assertEquals("0", out.get("count"));
        LOG.info("OpenCL with no ICD registered: {}", probe);
    }

    private static Map<String, String> run(List<String> args, Map<String, String> env)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not end");
        LOG.info("child JVM (env {}) {}:\n{}", env, String.join(" ", cmd.subList(1, cmd.size())), text);
        assertEquals(0, p.exitValue(), text);
        List<String> lines = text.lines().toList();
        assertTrue(lines.contains("end"), text);
        return lines.stream().filter(l -> l.matches("^[a-z0-9-]+=.*"))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1),
                        (x, y) -> x));
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    private static Path codeSource(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

}
