package org.depengine.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profile summary: names, thread roles, and a real (short) JFR recording matched to a JMH result. */
class ProfileSummaryTest {

    @Test
    void typeNamesAreShort() {
        assertEquals("OpBlock", ProfileSummary.simpleName("org.depengine.core.OpBlock"));
        assertEquals("Foo$$Lambda", ProfileSummary.simpleName("org.x.Foo$$Lambda$12/0x0000000800c0b000"));
        assertEquals("Var[]", ProfileSummary.simpleName("[Lorg.depengine.api.Var;"));
        assertEquals("long[][]", ProfileSummary.simpleName("[[J"));
    }

    @Test
    void profilerFramesAreThoseOfTheProfilersPackage() {
        assertTrue(ProfileSummary.isProfilerType("org.depengine.profiler.Recorder"));
        assertTrue(ProfileSummary.isProfilerType("org.depengine.profiler.Ring$Slot"));
        assertFalse(ProfileSummary.isProfilerType("org.depengine.core.OpBlock"));
        assertFalse(ProfileSummary.isProfilerType("org.depengine.profilers.Other"));
    }

    @Test
    void threadsHaveRolesByName() {
        assertEquals(ProfileSummary.PUSHER, ProfileSummary.role("org.depengine.benchmarks.LinearChain.engine-jmh-worker-1"));
        assertEquals(ProfileSummary.WORKERS, ProfileSummary.role("depengine-perdevice-cpu0-worker-1"));
        assertEquals(ProfileSummary.POOL, ProfileSummary.role("ForkJoinPool-1-worker-2"));
        assertEquals(ProfileSummary.OTHER, ProfileSummary.role("C2 CompilerThread0"));
    }

    @Test
    void aRecordingIsSummarisedAndMatchedToItsResult(@TempDir Path dir) throws Exception {
        Path jfr = dir.resolve("jfr").resolve("LinearChain-engine-perdevice").resolve("profile.jfr");
        Files.createDirectories(jfr.getParent());
        // Record a thread named like JMH's benchmark thread, spinning and allocating, with run.sh's settings.
        try (Recording r = new Recording(Configuration.create(Path.of("profile.jfc")))) {
            r.start();
            Thread pusher = new Thread(() -> {
                long end = System.nanoTime() + 400_000_000L;
                long sink = 0;
                while (System.nanoTime() < end) {
                    sink += new long[64].length;
                }
                if (sink == 42) {
                    System.out.println(sink);
                }
            }, "org.depengine.benchmarks.LinearChain.engine-jmh-worker-1");
            pusher.start();
            pusher.join();
            r.stop();
            r.dump(jfr);
        }
        // The label JfrBenchmarkTag writes in the forked JVM.
        Files.writeString(jfr.resolveSibling(JfrBenchmarkTag.FILE), JfrBenchmarkTag.BENCHMARK
                + "=org.depengine.benchmarks.LinearChain.engine\n" + JfrBenchmarkTag.PARAM + "engine=perdevice\n");
        Path json = dir.resolve("jmh.json");
        Files.writeString(json, "[{\"benchmark\": \"org.depengine.benchmarks.LinearChain.engine\", \"mode\": \"avgt\", "
                + "\"forks\": 1, \"jdkVersion\": \"17.0.15\", \"vmName\": \"OpenJDK 64-Bit Server VM\", \"warmupIterations\": 2, "
                + "\"warmupTime\": \"1 s\", \"measurementIterations\": 5, \"measurementTime\": \"1 s\", "
                + "\"params\": {\"engine\": \"perdevice\"}, \"primaryMetric\": {\"score\": 6553.6, \"scoreError\": \"NaN\", "
                + "\"scoreUnit\": \"us/op\"}, \"secondaryMetrics\": {\"gc.alloc.rate.norm\": {\"score\": 6553600.0, "
                + "\"scoreUnit\": \"B/op\"}}}]", StandardCharsets.UTF_8);

        // Written as run.sh writes it, read back as the report reads it.
        Path profiles = Files.createDirectories(dir.resolve("profiles"));
        ProfileSummary.main(new String[] {json.toString(), dir.resolve("jfr").toString(),
            profiles.resolve("jdk17.json").toString(), "abc"});
        ProfileRun run = ReportMain.readProfiles(profiles).values().iterator().next();
        ProfileRun.Profile p = run.find("LinearChain", Map.of(), "perdevice");
        assertEquals(1 << 16, p.opsPerRun());
        assertEquals(100.0, p.allocBytesPerRun() / p.opsPerRun(), 1e-9);
        assertEquals(0, p.gcMillis()); // no collection reported: gc.time is left out by JMH, read as 0
        ProfileRun.Role pusher = p.roles().stream().filter(r -> r.role().equals(ProfileSummary.PUSHER)).findFirst().orElseThrow();
        assertTrue(pusher.samples() > 0, p.toString());
        assertEquals(0L, pusher.profilerSamples()); // counted (no profiler code ran), not left out
        assertEquals("abc", run.commit());
    }
}
