package org.depengine.examples.minimal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.depengine.examples.minimal.launch.ModulePathMain;
import org.junit.jupiter.api.Test;

/**
 * The plugin as a third party ships it: a JVM with the plugin, the API and an engine on the module path
 * finds the plugin through its module-info and runs ops on it in push order.
 */
class ModulePathTest {
    @Test
    void onTheModulePathThePluginIsFoundAndRunsOpsInOrder() throws Exception {
        String modules = Stream.of(MinimalDeviceProvider.class, org.depengine.api.Engine.class,
                        org.depengine.core.AbstractEngine.class, Class.forName("org.depengine.engine.perdevice.PerDeviceEngine"),
                        org.slf4j.LoggerFactory.class, Class.forName("org.slf4j.simple.SimpleLogger"))
                .map(ModulePathTest::codeSource).collect(Collectors.joining(File.pathSeparator));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "--module-path", modules, "--add-modules", "ALL-MODULE-PATH", "-cp",
                codeSource(ModulePathMain.class), ModulePathMain.class.getName()).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not end");
        assertEquals(0, p.exitValue(), text);
        Map<String, String> out = text.lines().filter(l -> l.matches("^[a-z]+=.*"))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1),
                        (a, b) -> a));
        assertEquals("org.depengine.examples.minimal", out.get("module"), text);
        assertEquals("available", out.get("probe"), text);
        long expected = 1;
        for (int i = 0; i < 10; i++) {
            expected = expected * 3 + i + i % 2;
        }
        assertEquals(String.valueOf(expected), out.get("value"), "the serial result of the pushes: " + text);
        assertTrue(List.of(text.split("\n")).contains("end"), text);
    }

    private static String codeSource(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
