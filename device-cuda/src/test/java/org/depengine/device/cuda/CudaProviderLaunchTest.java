package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.spi.ToolProvider;
import org.depengine.api.device.DeviceProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Launches child JVMs (the same {@code java} binary as this test's) with this module, engine-api,
 * JCuda and SLF4J on the module path, then on the class path, and a tiny program that looks the
 * {@code cuda} provider up through {@link org.depengine.api.device.Devices} and prints its probe. On a
 * machine without a GPU the probe must say why, and the JVM must exit normally.
 *
 * <p>The jars are found from the classes and resources they hold in this test's own class path (the
 * natives jars hold no class: they are found by their library resource), so the test needs no Maven
 * configuration.
 */
class CudaProviderLaunchTest {
    private static final Logger LOG = LoggerFactory.getLogger(CudaProviderLaunchTest.class);

    private static final String MAIN = """
            package depengine.cudaprobe;

            import org.depengine.api.device.Availability;
            import org.depengine.api.device.DeviceProvider;
            import org.depengine.api.device.Devices;

            public final class Main {
                public static void main(String[] args) {
                    System.out.println("types=" + Devices.types());
                    DeviceProvider p = Devices.provider("cuda");
                    Availability a = p.probe();
                    System.out.println("provider=" + p.getClass().getName());
                    System.out.println("module=" + p.getClass().getModule().getName());
                    System.out.println("probe=" + a);
                    System.out.println("cached=" + (a == p.probe()));
                    System.out.println("count=" + p.deviceCount());
                    if (a.available()) {
                        System.out.println("device0=" + p.device(0).description());
                    } else {
                        try {
                            p.device(0);
                            System.out.println("device0=opened although unavailable");
                        } catch (IllegalStateException e) {
                            System.out.println("device0-refused=" + e.getMessage());
                        }
                    }
                    System.out.println("end");
                }
            }
            """;

    private static final String MODULE_INFO = """
            module depengine.cudaprobe {
                requires org.depengine.api;
            }
            """;

    /** The control: JCuda's own loader, alone on the module path, without this module's help. */
    private static final String CONTROL_MAIN = """
            package depengine.jcudaalone;

            public final class Main {
                public static void main(String[] args) {
                    try {
                        jcuda.driver.JCudaDriver.setExceptionsEnabled(true);
                        System.out.println("jcuda=loaded");
                    } catch (Throwable t) {
                        String m = String.valueOf(t.getMessage());
                        System.out.println("jcuda-error=" + t.getClass().getName() + ": "
                                + (m.contains("No resource found") ? "No resource found" : m.lines().findFirst().orElse("")));
                    }
                    System.out.println("end");
                }
            }
            """;

    /** Api jars (or class directories): this module, engine-api, jcuda, jcublas, slf4j-api, slf4j-simple. */
    private static List<Path> apiPath;
    /** The natives jars (jcuda-natives, jcublas-natives). */
    private static List<Path> nativesPath;

    @BeforeAll
    static void locateJars() throws Exception {
        apiPath = List.of(
                codeSource(CudaDeviceProvider.class),
                codeSource(DeviceProvider.class),
                codeSource(org.depengine.device.common.AsyncStream.class),
                codeSource(jcuda.Pointer.class),
                codeSource(jcuda.jcublas.JCublas2.class),
                codeSource(LoggerFactory.class),
                codeSource(Class.forName("org.slf4j.simple.SimpleLogger")));
        nativesPath = List.of(
                jarOfResource("lib/" + JCudaNatives.fileName("JCudaDriver")),
                jarOfResource("lib/" + JCudaNatives.fileName("JCublas2")));
        LOG.info("launch test paths: api {}, natives {}", apiPath, nativesPath);
    }

    @Test
    void onTheModulePathTheProviderIsFoundAndReportsCleanly(@TempDir Path tmp) throws Exception {
        Path classes = tmp.resolve("mod");
        compile(tmp.resolve("src-mod"), classes, true);
        List<Path> modulePath = new ArrayList<>(apiPath);
        modulePath.addAll(nativesPath);
        modulePath.add(classes);
        Result r = run(tmp, List.of("--module-path", join(modulePath), "-m", "depengine.cudaprobe/depengine.cudaprobe.Main"));
        assertEquals("org.depengine.device.cuda", r.value("module"), "the provider runs as a named module");
        checkProbe(r, "module path");
    }

    /** The natives jars on the class path beside a module-path application: the usual mixed layout. */
    @Test
    void onTheModulePathWithNativesOnTheClassPath(@TempDir Path tmp) throws Exception {
        Path classes = tmp.resolve("mod");
        compile(tmp.resolve("src-mod"), classes, true);
        List<Path> modulePath = new ArrayList<>(apiPath);
        modulePath.add(classes);
        Result r = run(tmp, List.of("--module-path", join(modulePath), "-cp", join(nativesPath),
                "-m", "depengine.cudaprobe/depengine.cudaprobe.Main"));
        assertEquals("org.depengine.device.cuda", r.value("module"));
        checkProbe(r, "module path, natives on the class path");
    }

    @Test
    void onTheClassPathTheProviderIsFoundAndReportsCleanly(@TempDir Path tmp) throws Exception {
        Path classes = tmp.resolve("cp");
        compile(tmp.resolve("src-cp"), classes, false);
        List<Path> classPath = new ArrayList<>(apiPath);
        classPath.addAll(nativesPath);
        classPath.add(classes);
        Result r = run(tmp, List.of("-cp", join(classPath), "depengine.cudaprobe.Main"));
        assertEquals("null", r.value("module"), "on the class path the provider is in the unnamed module");
        checkProbe(r, "class path");
    }

    /**
     * Why this module extracts the natives itself: JCuda alone on the module path, in a fresh temp dir,
     * looks for its library inside module {@code jcuda} only and fails with "No resource found" (on a
     * machine with a GPU as well as without one).
     */
    @Test
    void controlJCudaAloneOnTheModulePathCannotFindItsNatives(@TempDir Path tmp) throws Exception {
        Path src = tmp.resolve("src-control");
        Path main = src.resolve("depengine/jcudaalone/Main.java");
        Files.createDirectories(main.getParent());
        Files.writeString(main, CONTROL_MAIN);
        Path info = src.resolve("module-info.java");
        Files.writeString(info, "module depengine.jcudaalone { requires jcuda; }\n");
        Path classes = tmp.resolve("control");
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        List<Path> jcudaOnly = List.of(codeSource(jcuda.Pointer.class), nativesPath.get(0));
        assertEquals(0, javac.run(System.out, System.err, "-d", classes.toString(), "--release", "17",
                "--module-path", join(jcudaOnly), info.toString(), main.toString()));
        List<Path> modulePath = new ArrayList<>(jcudaOnly);
        modulePath.add(classes);
        Result r = run(tmp, List.of("--module-path", join(modulePath), "-m", "depengine.jcudaalone/depengine.jcudaalone.Main"));
        assertEquals(0, r.exitCode(), r.output());
        assertEquals("java.lang.UnsatisfiedLinkError: No resource found", r.value("jcuda-error"), r.output());
        LOG.info("control, JCuda alone on the module path: {}", r.value("jcuda-error"));
    }

    private static void checkProbe(Result r, String layout) {
        assertEquals(0, r.exitCode(), "exit code; output:\n" + r.output());
        assertTrue(r.value("types").contains("cuda"), r.value("types"));
        assertEquals(CudaDeviceProvider.class.getName(), r.value("provider"));
        assertEquals("true", r.value("cached"));
        assertEquals("end", r.lines().get(r.lines().size() - 1), "the program ran to its end:\n" + r.output());
        String probe = r.value("probe");
        assertNotNull(probe, r.output());
        if (probe.startsWith("available")) {
            assertFalse(r.value("count").equals("0"));
            LOG.info("CUDA on the {} ({}): {}, device 0 = {}", layout, r.device(), probe, r.value("device0"));
        } else {
            assertTrue(probe.startsWith("unavailable: "), probe);
            assertFalse(probe.contains("No resource found"), "JCuda's natives must be found on the " + layout + ": " + probe);
            assertFalse(probe.contains("Could not initialize class"), probe);
            assertEquals("0", r.value("count"));
            assertTrue(r.value("device0-refused").contains(probe.substring("unavailable: ".length())),
                    r.value("device0-refused"));
            LOG.info("CUDA on the {}: {}", layout, probe);
        }
    }

    private static void compile(Path src, Path out, boolean asModule) throws IOException {
        Path main = src.resolve("depengine/cudaprobe/Main.java");
        Files.createDirectories(main.getParent());
        Files.writeString(main, MAIN);
        List<String> args = new ArrayList<>(List.of("-d", out.toString(), "--release", "17"));
        if (asModule) {
            Path info = src.resolve("module-info.java");
            Files.writeString(info, MODULE_INFO);
            args.addAll(List.of("--module-path", join(apiPath), info.toString()));
        } else {
            args.addAll(List.of("-cp", join(apiPath)));
        }
        args.add(main.toString());
        // java.util.spi.ToolProvider (java.base): no need to read module java.compiler.
        ToolProvider javac = ToolProvider.findFirst("javac").orElse(null);
        assertNotNull(javac, "the tests need a JDK (javac)");
        int rc = javac.run(System.out, System.err, args.toArray(String[]::new));
        assertEquals(0, rc, "compiling the probe program failed");
    }

    private record Result(int exitCode, String output, List<String> lines, String device) {
        String value(String key) {
            return lines.stream().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElse(null);
        }
    }

    private static Result run(Path dir, List<String> args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        // A private temp dir: the natives get extracted there, as on a fresh machine.
        cmd.add("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("jvm-tmp")));
        cmd.add("-Dorg.slf4j.simpleLogger.logFile=System.err");
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not end");
        LOG.info("child JVM {}:\n{}", cmd.stream().skip(1).collect(Collectors.joining(" ")), out);
        List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
        // stdout lines of the program are key=value; stderr (logging) is interleaved but never matches "end" alone.
        List<String> programLines = lines.stream().filter(l -> l.equals("end") || l.matches("^[a-z0-9-]+=.*")).toList();
        return new Result(p.exitValue(), out, programLines, java);
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    private static Path codeSource(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static Path jarOfResource(String name) throws URISyntaxException {
        URL url = CudaProviderLaunchTest.class.getClassLoader().getResource(name);
        assertNotNull(url, "resource " + name + " is not on the test class path");
        Matcher m = Pattern.compile("^jar:(.*)!/.*$").matcher(url.toString());
        assertTrue(m.matches(), "resource " + name + " is not in a jar: " + url);
        return Path.of(java.net.URI.create(m.group(1)));
    }
}
