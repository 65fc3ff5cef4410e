package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.depengine.api.AsyncFn;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.OprHandle;
import org.depengine.api.SyncFn;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing an engine has finished with stays reachable: deleted variables, deleted operators and
 * the closures of finished ops are collected, and a long mixed workload in a small heap keeps the
 * heap flat. The soak runs {@link SoakProgram} in a JVM of its own with {@code -Xmx128m}: a short
 * form in every build, millions of ops with {@code -Ddepengine.test.long=true}.
 */
public abstract class LeakConformance extends EngineTestBase {
    private static final long MIB = 1024 * 1024;

    /** Workload steps in the soak (1.25 ops each): 300k in every build, 20M for the long form. */
    protected long soakOps() {
        return ConcurrencyConformance.longRuns() ? 20_000_000 : 300_000;
    }

    /**
     * Polls, with full collections, until {@code ref} is cleared; fails after a bounded number of
     * collections (an object still reachable after that many full GCs is leaked, not slow).
     */
    private static void assertCollected(WeakReference<?> ref, String what) {
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
        }
        assertTrue(ref.get() == null, what + " is still reachable after the engine finished with it");
    }

    // Each helper makes its objects in a frame of its own and returns only a weak reference, so the
    // test's own stack holds nothing.

    private WeakReference<VarHandle> useAndDeleteAVariable() {
        VarHandle v = engine.newVariable("doomed");
        VarHandle out = engine.newVariable("out");
        engine.pushSync(ctx -> { }, opContext(), List.of(), List.of(v));
        engine.pushSync(ctx -> { }, opContext(), List.of(v), List.of(out));
        engine.deleteVariable(ctx -> { }, opContext(), v);
        return new WeakReference<>(v);
    }

    @Test
    void aDeletedVariableIsCollected() {
        WeakReference<VarHandle> ref = useAndDeleteAVariable();
        engine.waitForAll(BOUND);
        assertCollected(ref, "a deleted variable");
    }

    private WeakReference<VarHandle> deleteAVariableThatFailed() {
        VarHandle v = engine.newVariable("failed-and-doomed");
        engine.pushSync(ctx -> {
            throw new IllegalStateException("boom");
        }, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "fails");
        engine.deleteVariable(ctx -> { }, opContext(), v);
        return new WeakReference<>(v);
    }

    @Test
    void aDeletedVariableWhoseFailureWasReportedIsCollected() {
        WeakReference<VarHandle> ref = deleteAVariableThatFailed();
        EngineException reported = assertThrows(EngineException.class, () -> engine.waitForAll(BOUND),
                "the failure of the op that wrote the deleted variable was not reported");
        assertEquals("boom", reported.getCause().getMessage(), "reported a failure other than the op's");
        assertTrue(reported.getMessage().contains("fails"), "does not name the failed op: " + reported.getMessage());
        assertCollected(ref, "a deleted variable that carried a reported failure");
    }

    private List<WeakReference<Object>> pushAndDeleteAnOperator() {
        VarHandle in = engine.newVariable("in");
        VarHandle out = engine.newVariable("out");
        int[] runs = new int[1]; // captured, so the function is an object of its own (not a shared constant lambda)
        AsyncFn fn = (ctx, done) -> {
            runs[0]++;
            done.complete();
        };
        OprHandle op = engine.newOperator(fn, List.of(in), List.of(out), FnProperty.NORMAL, "conv1");
        for (int i = 0; i < 3; i++) {
            engine.push(op, opContext(), 0, false);
        }
        engine.deleteOperator(op);
        List<WeakReference<Object>> refs = new ArrayList<>();
        refs.add(new WeakReference<>(op));
        refs.add(new WeakReference<>(fn));
        return refs;
    }

    @Test
    void aDeletedOperatorAndItsFunctionAreCollected() {
        List<WeakReference<Object>> refs = pushAndDeleteAnOperator();
        engine.waitForAll(BOUND);
        assertCollected(refs.get(0), "a deleted operator");
        assertCollected(refs.get(1), "the function of a deleted operator");
    }

    private List<WeakReference<Object>> runOpsHoldingData(VarHandle v) {
        List<WeakReference<Object>> refs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            long[] payload = new long[1024];
            SyncFn fn = ctx -> payload[0]++;
            engine.pushSync(fn, opContext(), List.of(), List.of(v), FnProperty.NORMAL, 0, "holds-data-" + i);
            refs.add(new WeakReference<>(fn));
            refs.add(new WeakReference<>(payload));
        }
        for (int i = 0; i < 4; i++) {
            long[] payload = new long[1024];
            AsyncFn fn = (ctx, done) -> {
                payload[0]++;
                done.complete();
            };
            engine.pushAsync(fn, Context.cpu(), List.of(v), List.of(engine.newVariable()), FnProperty.ASYNC, 0, "async-holds-data-" + i);
            refs.add(new WeakReference<>(fn));
            refs.add(new WeakReference<>(payload));
        }
        return refs;
    }

    @Test
    void theClosuresOfFinishedOpsAreCollected() {
        VarHandle v = engine.newVariable("v");
        List<WeakReference<Object>> refs = runOpsHoldingData(v);
        engine.waitForAll(BOUND);
        for (int i = 0; i < refs.size(); i++) {
            assertCollected(refs.get(i), "the " + (i % 2 == 0 ? "function" : "captured data") + " of finished op #" + i / 2);
        }
    }

    private List<WeakReference<Object>> runDeviceOpsHoldingData(List<VarHandle> vars) {
        List<WeakReference<Object>> refs = new ArrayList<>();
        for (int i = 0; i < vars.size(); i++) {
            long[] payload = new long[1 << 17]; // 1 MiB
            SyncFn fn = ctx -> payload[0]++;
            engine.pushSync(fn, MisbehavingDevices.Offence.NONE.context(), List.of(), List.of(vars.get(i)),
                    FnProperty.NORMAL, 0, "device-holds-data-" + i);
            refs.add(new WeakReference<>(fn));
            refs.add(new WeakReference<>(payload));
        }
        return refs;
    }

    /**
     * A device op that released its variables at launch (a fence) is forgotten by them once its device
     * work is done: the variables stay alive here, untouched, and must not keep the op's closure.
     */
    @Test
    void theClosuresOfFinishedDeviceOpsAreCollectedWhileTheirVariablesLive() {
        List<VarHandle> vars = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            vars.add(engine.newVariable("device-out-" + i));
        }
        List<WeakReference<Object>> refs = runDeviceOpsHoldingData(vars);
        engine.waitForAll(BOUND);
        for (VarHandle v : vars) {
            engine.waitForVar(v, BOUND);
        }
        for (int i = 0; i < refs.size(); i++) {
            assertCollected(refs.get(i), "the " + (i % 2 == 0 ? "function" : "captured data") + " of finished device op #" + i / 2);
        }
        for (VarHandle v : vars) {
            assertEquals(1, v.version()); // and keeps the variables reachable up to here
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES) // the long form; the child JVM's own wait is bounded below
    void aLongMixedWorkloadInA128MiBHeapKeepsTheHeapFlat() throws Exception {
        // The soak runs a workload of its own (CPU and async ops, two CPU devices) in a JVM of its own, with
        // no listener: the same in every configuration, so it runs in one.
        assumeTrue(configuration() == EngineSetup.Configuration.CPU,
                "the soak's own workload does not change with the configuration: it runs in CPU only");
        engine.close(); // the soak has a JVM of its own
        long ops = soakOps();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-cp", System.getProperty("java.class.path"), SoakProgram.class.getName(), engineName(),
                Long.toString(ops), "10"));
        settings().forEach((k, v) -> cmd.add(k + "=" + v));
        Path log = logFile();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long limitSeconds = ConcurrencyConformance.longRuns() ? 45 * 60 : 5 * 60;
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            fail("the soak did not finish within " + limitSeconds + " s:\n" + read(log));
        }
        String out = read(log);
        assertEquals(0, p.exitValue(), "the soak JVM failed (" + log + "):\n" + out);
        Map<String, Long> r = resultOf(out);
        assertEquals(r.get("expected"), r.get("ran"), "ops lost or run twice:\n" + out);
        assertEquals(r.get("expectedFailures"), r.get("failuresReported"), "every failure reported once:\n" + out);
        assertEquals(0L, r.get("oldSurvivorsMax"), "finished work still reachable at a later checkpoint:\n" + out);
        // After the first checkpoint the heap in use after a full GC is flat to ~0.1 MiB here; 2 MiB
        // still catches a leak of a few bytes per op (the short form runs ~375k ops).
        assertTrue(r.get("heapMax") - r.get("heapFirst") <= 4 * MIB, "the heap grew:\n" + out);
        assertTrue(r.get("heapLast") - r.get("heapFirst") <= 2 * MIB, "the heap grew:\n" + out);
        assertEquals(r.get("threadsBefore"), r.get("threadsAfter"), "engine threads left after close:\n" + out);
        if (threaded()) {
            assertTrue(r.get("threadsDuring") > 0, "a threaded engine ran on threads of its own:\n" + out);
        }
    }

    private Path logFile() throws IOException {
        Path dir = Files.isDirectory(Path.of("target")) ? Path.of("target") : Files.createTempDirectory("depengine-soak");
        return dir.resolve("soak-" + engineName() + (ConcurrencyConformance.longRuns() ? "-long" : "") + ".log");
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    private static Map<String, Long> resultOf(String out) {
        Map<String, Long> r = new HashMap<>();
        for (String line : out.split("\\R")) {
            if (line.startsWith("result ")) {
                for (String kv : line.substring("result ".length()).split(" ")) {
                    int eq = kv.indexOf('=');
                    String value = kv.substring(eq + 1);
                    if (value.matches("-?\\d+")) {
                        r.put(kv.substring(0, eq), Long.parseLong(value));
                    }
                }
            }
        }
        for (String key : List.of("ran", "expected", "expectedFailures", "failuresReported", "oldSurvivorsMax", "heapFirst",
                "heapMax", "heapLast", "threadsBefore", "threadsAfter", "threadsDuring")) {
            if (!r.containsKey(key)) {
                fail("the soak printed no '" + key + "':\n" + out);
            }
        }
        return r;
    }
}
