package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An autostarted profiler ends with its engine; invalid autostart settings fail the engine's creation. */
class AutostartClosingTest {
    private static final List<String> PROPS = List.of(Profiler.AUTOSTART_PROPERTY, Profiler.FILE_PROPERTY,
            Profiler.MODE_PROPERTY, Profiler.DUMP_PERIOD_PROPERTY);

    @TempDir
    Path dir;

    @AfterEach
    void clearProperties() {
        PROPS.forEach(System::clearProperty);
    }

    private WeakReference<Profiler> autostartAndRun(Engine engine, Path file) {
        System.setProperty(Profiler.AUTOSTART_PROPERTY, "true");
        System.setProperty(Profiler.FILE_PROPERTY, file.toString());
        System.setProperty(Profiler.DUMP_PERIOD_PROPERTY, "5");
        Profiler p = Profiler.autostart(engine).orElseThrow();
        System.clearProperty(Profiler.AUTOSTART_PROPERTY);
        VarHandle v = engine.newVariable("v");
        engine.pushSync(ctx -> { }, Context.cpu(), List.of(), List.of(v), org.depengine.api.FnProperty.NORMAL, 0, "traced");
        engine.waitForAll();
        return new WeakReference<>(p);
    }

    @Test
    void closingTheEngineStopsDumpsAndReleasesItsAutostartedProfiler() throws Exception {
        Path file = dir.resolve("closing.json");
        Engine engine = Engine.create("naive");
        WeakReference<Profiler> ref = autostartAndRun(engine, file);
        engine.close();
        Profiler p = ref.get();
        if (p != null) {
            assertEquals(Profiler.State.STOPPED, p.state(), "the autostarted profiler stops when its engine closes");
            p = null;
        }
        // Later autostarted profilers of the process number their files (closing-2.json, ...).
        Path written;
        try (var files = Files.list(dir)) {
            written = files.filter(f -> f.getFileName().toString().startsWith("closing")).findFirst().orElse(null);
        }
        assertTrue(written != null, "the final dump was written");
        assertEquals(1, TraceView.read(written).hostOps().size(), "the final dump has the engine's op");
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
        }
        assertTrue(ref.get() == null, "the autostarted profiler of a closed engine is still reachable");
        assertTrue(engine.isClosed());
    }

    @Test
    void invalidProfilerSettingsUnderAutostartFailTheEnginesCreation() {
        System.setProperty(Profiler.AUTOSTART_PROPERTY, "true");
        System.setProperty(Profiler.FILE_PROPERTY, dir.resolve("never.json").toString());
        System.setProperty(Profiler.MODE_PROPERTY, "some");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Engine.create("naive").close());
        assertTrue(e.getMessage().contains(Profiler.MODE_PROPERTY), e.getMessage());
    }

    @Test
    void anInvalidAutostartValueIsNamed() {
        System.setProperty(Profiler.AUTOSTART_PROPERTY, "yes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Profiler.autostart(new Fakes.ListenerSink("e").engine));
        assertTrue(e.getMessage().contains(Profiler.AUTOSTART_PROPERTY), e.getMessage());
    }
}
