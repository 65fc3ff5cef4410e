package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.depengine.profiler.Fakes.FakeOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AutostartTest {
    private static final List<String> PROPS = List.of(Profiler.AUTOSTART_PROPERTY, Profiler.FILE_PROPERTY,
            Profiler.MODE_PROPERTY, Profiler.DUMP_PERIOD_PROPERTY, Profiler.RING_CAPACITY_PROPERTY,
            Profiler.MAX_THREADS_PROPERTY, Profiler.HTML_FILE_PROPERTY);

    @TempDir
    Path dir;

    @AfterEach
    void clearProperties() {
        PROPS.forEach(System::clearProperty);
    }

    @Test
    void offByDefault() {
        Fakes.ListenerSink sink = new Fakes.ListenerSink("e");
        assertEquals(Optional.empty(), Profiler.autostart(sink.engine));
        assertTrue(sink.listeners.isEmpty());
    }

    @Test
    void startsFromSystemPropertiesAndWritesItsFileOnStop() throws Exception {
        Path file = dir.resolve("auto.json");
        System.setProperty(Profiler.AUTOSTART_PROPERTY, "true");
        System.setProperty(Profiler.FILE_PROPERTY, file.toString());
        System.setProperty(Profiler.MODE_PROPERTY, "flagged");
        System.setProperty(Profiler.HTML_FILE_PROPERTY, dir.resolve("auto.html").toString());
        Fakes.ListenerSink sink = new Fakes.ListenerSink("e");
        Profiler p = Profiler.autostart(sink.engine).orElseThrow();
        assertEquals(List.of(p.listener()), sink.listeners);
        assertEquals(Profiler.Mode.FLAGGED, p.mode());
        assertEquals(Profiler.State.RUNNING, p.state());
        Fakes.run(p.listener(), new FakeOp(1, "flagged"), 0, 1, -1, 2);
        FakeOp not = new FakeOp(2, "not");
        not.profiling = false;
        Fakes.run(p.listener(), not, 2, 3, -1, 4);

        Fakes.ListenerSink sink2 = new Fakes.ListenerSink("e2");
        Profiler p2 = Profiler.autostart(sink2.engine).orElseThrow();
        p.stop();
        p2.stop();
        TraceView t = TraceView.read(file);
        assertEquals(1, t.hostOps().size());
        assertEquals("flagged", t.hostOps().get(0).get("name"));
        assertTrue(Files.exists(dir.resolve("auto.html")));
        try (var files = Files.list(dir)) {
            // the second engine's profiler writes a numbered file next to the first
            assertEquals(4, files.filter(f -> f.getFileName().toString().startsWith("auto")).count());
        }
    }

    @Test
    void invalidValuesNameTheProperty() {
        System.setProperty(Profiler.AUTOSTART_PROPERTY, "true");
        System.setProperty(Profiler.MODE_PROPERTY, "some");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Profiler.autostart(new Fakes.ListenerSink("e").engine));
        assertTrue(e.getMessage().contains(Profiler.MODE_PROPERTY), e.getMessage());
        System.setProperty(Profiler.MODE_PROPERTY, "all");
        System.setProperty(Profiler.DUMP_PERIOD_PROPERTY, "soon");
        e = assertThrows(IllegalArgumentException.class, () -> Profiler.Builder.fromSystemProperties());
        assertTrue(e.getMessage().contains(Profiler.DUMP_PERIOD_PROPERTY), e.getMessage());
    }
}
