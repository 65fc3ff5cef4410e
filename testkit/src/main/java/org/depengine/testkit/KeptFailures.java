package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verdict on failures a test expected to be collected but found still reachable: fails the test if a GC root
 * that a heap dump lists (a Java frame, a JNI handle, a thread, a monitor, a class or its statics) reaches any of
 * them through object fields or array elements, or if more are kept than there are live threads; otherwise logs
 * that they are held only by roots the dump does not list. See {@code failuresReportedByWaitForVarAreNotKept} for
 * why such roots exist (HotSpot's per-thread {@code _vm_result}).
 */
final class KeptFailures {
    private static final Logger LOG = LoggerFactory.getLogger(KeptFailures.class);

    private KeptFailures() {
    }

    /**
     * Takes a live heap dump of this JVM and checks the {@link Throwable}s whose detail message is one of
     * {@code messages} in it. The dump goes to a fresh temporary directory and is deleted before this returns,
     * whatever the outcome.
     *
     * @param messages the detail messages of the kept failures; each must be unique to the failure it names
     * @param what what the failures are, for the assertion message
     */
    static void assertHeldOnlyByUnlistedRoots(Set<String> messages, String what) {
        Verdict verdict;
        try {
            Path dir = Files.createTempDirectory("depengine-kept-failures");
            Path file = dir.resolve("live.hprof");
            try {
                HeapDump.dumpLive(file);
                verdict = verdict(HeapDump.read(file), messages, ManagementFactory.getThreadMXBean().getThreadCount(), what);
            } finally {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not take or read the heap dump that explains " + what, e);
        }
        if (verdict.problem != null) {
            fail(verdict.problem);
        }
        LOG.info("{} {} were still reachable after the bound: {} of them are in a live heap dump, held only by roots the "
                + "dump does not list (HotSpot's per-thread _vm_result), the rest went in the dump's own collection: {}",
                messages.size(), what, verdict.inDump, messages);
    }

    /** How many of the failures the dump holds, and why the test fails, or null if it does not. */
    record Verdict(int inDump, String problem) {}

    /** The rule of {@link #assertHeldOnlyByUnlistedRoots} applied to a dump, with {@code threads} live threads. */
    static Verdict verdict(HeapDump dump, Set<String> messages, int threads, String what) {
        Map<Long, String> byId = new TreeMap<>();
        for (long id : dump.instancesOf("java.lang.Throwable")) {
            dump.stringField(id, "detailMessage").filter(messages::contains).ifPresent(m -> byId.put(id, m));
        }
        Map<String, String> paths = new TreeMap<>();
        dump.pathsFromListedRoots(byId.keySet()).forEach((id, path) -> paths.put(byId.get(id), path));
        if (!paths.isEmpty()) {
            return new Verdict(byId.size(), paths.size() + " of " + messages.size() + " " + what + " are kept by a root "
                    + "the heap dump lists (the engine or the test keeps them); " + describe(paths));
        }
        if (byId.size() > threads) {
            return new Verdict(byId.size(), byId.size() + " " + what + " are kept by no root a heap dump lists, more than "
                    + "the " + threads + " live threads: the JVM's per-thread slot holds at most one each");
        }
        return new Verdict(byId.size(), null);
    }

    private static String describe(Map<String, String> paths) {
        List<String> first = paths.entrySet().stream().limit(5).map(e -> "'" + e.getKey() + "': " + e.getValue()).toList();
        return String.join("; ", first) + (paths.size() > first.size() ? "; ..." : "");
    }
}
