package org.depengine.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * {@link HeapDump} and {@link KeptFailures} on their own: on live dumps of this JVM, an object a static field
 * holds is found with its path and fails the check, one only a weak reference holds is not kept; on a dump
 * written here, an object that is in the dump but that no listed root reaches (as one HotSpot's {@code _vm_result}
 * holds) has no path, and a weak referent is no path; and {@link KeptFailures#verdict}'s rule on such a dump.
 */
class HeapDumpTest {
    /** Holds the object whose path the tests look for. */
    static final Object[] KEEPER = new Object[2];

    @TempDir
    Path dir;

    @Test
    void aStaticFieldIsAPathFromAListedRoot() throws IOException {
        String message = "held by a static " + System.nanoTime();
        KEEPER[1] = new IllegalStateException(message); // and by no local of this frame
        try {
            HeapDump dump = dumpThisJvm();
            long id = find(dump, message);
            String path = dump.pathsFromListedRoots(List.of(id)).get(id);
            assertEquals("static field org.depengine.testkit.HeapDumpTest.KEEPER -> java.lang.Object[1] "
                    + "-> java.lang.IllegalStateException", path);
        } finally {
            KEEPER[1] = null;
        }
    }

    @Test
    void aFailureAStaticKeepsFailsTheCheckNamingThePath() {
        String message = "kept by a static " + System.nanoTime();
        KEEPER[0] = new IllegalStateException(message);
        try {
            AssertionFailedError e = assertThrows(AssertionFailedError.class,
                    () -> KeptFailures.assertHeldOnlyByUnlistedRoots(Set.of(message), "test failures"));
            assertTrue(e.getMessage().contains("1 of 1 test failures are kept by a root the heap dump lists"), e.getMessage());
            assertTrue(e.getMessage().contains("'" + message + "': static field org.depengine.testkit.HeapDumpTest.KEEPER "
                    + "-> java.lang.Object[0] -> java.lang.IllegalStateException"), e.getMessage());
        } finally {
            KEEPER[0] = null;
        }
    }

    @Test
    void aFailureOnlyAWeakReferenceHoldsPassesTheCheckAndTheDumpIsDeleted() throws IOException {
        String message = "weakly held " + System.nanoTime();
        WeakReference<Throwable> weak = new WeakReference<>(new IllegalStateException(message));
        KEEPER[0] = weak;
        try (var before = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            long dumpsBefore = before.filter(p -> p.getFileName().toString().startsWith("depengine-kept-failures")).count();
            KeptFailures.assertHeldOnlyByUnlistedRoots(Set.of(message), "test failures");
            assertEquals(null, weak.get(), "the live dump's collection clears the weak referent");
            try (var after = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                assertEquals(dumpsBefore,
                        after.filter(p -> p.getFileName().toString().startsWith("depengine-kept-failures")).count());
            }
        } finally {
            KEEPER[0] = null;
        }
    }

    @Test
    void anObjectNoListedRootReachesHasNoPathAndAWeakReferentIsNoPath() throws IOException {
        // Classes: Object(1), Reference(2, referent), WeakReference(3), Node(4, next), Object[](5), Frame holder(6).
        // Objects: weak ref 100 -> 200 (referent); 300 unreferenced (a slot the dump does not list); array 400
        // in a Java frame -> 500 -> 600 by Node.next; class 6's static 'held' -> 700.
        Writer w = new Writer();
        w.loadClass(1, "java/lang/Object").loadClass(2, "java/lang/ref/Reference")
                .loadClass(3, "java/lang/ref/WeakReference").loadClass(4, "Node").loadClass(5, "[Ljava/lang/Object;")
                .loadClass(6, "Holder");
        w.classDump(1, 0, Map.of(), List.of()).classDump(2, 1, Map.of(), List.of("referent"))
                .classDump(3, 2, Map.of(), List.of()).classDump(4, 1, Map.of(), List.of("next"))
                .classDump(5, 1, Map.of(), List.of()).classDump(6, 1, Map.of("held", 700L), List.of());
        w.instance(100, 3, 200).instance(200, 4, 0).instance(300, 4, 0).array(400, 5, 0, 500)
                .instance(500, 4, 600).instance(600, 4, 0).instance(700, 4, 0);
        w.root(0x05, 3).root(0x03, 400).root(0x01, 100); // sticky class, Java frame, JNI global (the weak ref)
        Path file = dir.resolve("written.hprof");
        Files.write(file, w.bytes());
        HeapDump dump = HeapDump.read(file);

        assertEquals(List.of(100L, 200L, 300L, 500L, 600L, 700L).size(), dump.instancesOf("java.lang.Object").size());
        assertEquals(Set.of(100L), Set.copyOf(dump.instancesOf("java.lang.ref.Reference")));
        Map<Long, String> paths = dump.pathsFromListedRoots(List.of(200L, 300L, 600L, 700L));
        assertFalse(paths.containsKey(200L), "a weak referent is no path: " + paths);
        assertFalse(paths.containsKey(300L), "an object no listed root reaches has no path: " + paths);
        assertEquals("ROOT_JAVA_FRAME holding java.lang.Object[] -> java.lang.Object[1] -> Node.next -> Node",
                paths.get(600L));
        assertEquals("static field Holder.held -> Node", paths.get(700L));
    }

    @Test
    void theVerdictFailsOnAListedRootAndOnMoreUnlistedFailuresThanThreads() throws IOException {
        // Throwables 'boom 1..3' (ids 101..103) are in the dump with no listed root, as HotSpot's _vm_result
        // keeps one per thread; 'boom 4' (104) is held by the static Holder.held; 'other' (105) is not asked about.
        Writer w = new Writer();
        w.loadClass(1, "java/lang/Object").loadClass(2, "java/lang/String").loadClass(3, "java/lang/Throwable")
                .loadClass(4, "java/lang/IllegalStateException").loadClass(5, "Holder").loadClass(6, "[B");
        w.classDump(1, 0, Map.of(), List.of()).classDump(3, 1, Map.of(), List.of("detailMessage"))
                .classDump(4, 3, Map.of(), List.of()).classDump(5, 1, Map.of("held", 104L), List.of())
                .classDump(6, 1, Map.of(), List.of()).stringClassDump(2, 1);
        for (int i = 1; i <= 5; i++) {
            w.string(200 + i, 300 + i, i == 5 ? "other" : "boom " + i).instance(100 + i, 4, 200 + i);
        }
        Path file = dir.resolve("failures.hprof");
        Files.write(file, w.bytes());
        HeapDump dump = HeapDump.read(file);
        Set<String> unlisted = Set.of("boom 1", "boom 2", "boom 3");

        assertEquals(new KeptFailures.Verdict(3, null), KeptFailures.verdict(dump, unlisted, 3, "failures"));
        assertEquals(new KeptFailures.Verdict(3, "3 failures are kept by no root a heap dump lists, more than the 2 "
                + "live threads: the JVM's per-thread slot holds at most one each"),
                KeptFailures.verdict(dump, unlisted, 2, "failures"));
        assertEquals(new KeptFailures.Verdict(4, "1 of 4 failures are kept by a root the heap dump lists (the engine or "
                + "the test keeps them); 'boom 4': static field Holder.held -> java.lang.IllegalStateException"),
                KeptFailures.verdict(dump, Set.of("boom 1", "boom 2", "boom 3", "boom 4"), 100, "failures"));
        assertEquals(new KeptFailures.Verdict(0, null), KeptFailures.verdict(dump, Set.of("boom 9"), 0, "failures"));
    }

    @Test
    void aFileThatIsNotAHeapDumpIsRejected() throws IOException {
        Path file = dir.resolve("not.hprof");
        Files.write(file, "JAVA PROFILE? no\0".getBytes(StandardCharsets.US_ASCII));
        IOException e = assertThrows(IOException.class, () -> HeapDump.read(file));
        assertEquals("not an HPROF heap dump: header 'JAVA PROFILE? no'", e.getMessage());
    }

    private HeapDump dumpThisJvm() throws IOException {
        Path file = dir.resolve("live.hprof");
        HeapDump.dumpLive(file);
        return HeapDump.read(file);
    }

    private static long find(HeapDump dump, String message) {
        List<Long> ids = dump.instancesOf("java.lang.Throwable").stream()
                .filter(id -> dump.stringField(id, "detailMessage").filter(message::equals).isPresent()).toList();
        assertEquals(1, ids.size(), "throwables with message '" + message + "'");
        return ids.get(0);
    }

    /** Writes a small HPROF 1.0.2 file with 8-byte identifiers; field and string ids are derived from names. */
    private static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final DataOutputStream data = new DataOutputStream(out);
        private final ByteArrayOutputStream heap = new ByteArrayOutputStream();
        private final DataOutputStream h = new DataOutputStream(heap);
        private final Map<String, Long> strings = new java.util.HashMap<>();

        Writer() throws IOException {
            data.write("JAVA PROFILE 1.0.2\0".getBytes(StandardCharsets.US_ASCII));
            data.writeInt(8);
            data.writeLong(0);
        }

        private long string(String s) throws IOException {
            Long id = strings.get(s);
            if (id == null) {
                id = 10_000L + strings.size();
                strings.put(s, id);
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                record(0x01, 8 + b.length);
                data.writeLong(id);
                data.write(b);
            }
            return id;
        }

        private void record(int tag, int length) throws IOException {
            data.writeByte(tag);
            data.writeInt(0);
            data.writeInt(length);
        }

        Writer loadClass(long id, String name) throws IOException {
            long nameId = string(name);
            record(0x02, 4 + 8 + 4 + 8);
            data.writeInt((int) id);
            data.writeLong(id);
            data.writeInt(0);
            data.writeLong(nameId);
            return this;
        }

        Writer classDump(long id, long superId, Map<String, Long> objectStatics, List<String> objectFields)
                throws IOException {
            h.writeByte(0x20);
            h.writeLong(id);
            h.writeInt(0);
            h.writeLong(superId);
            for (int i = 0; i < 5; i++) {
                h.writeLong(0); // loader, signers, protection domain, reserved
            }
            h.writeInt(8 * objectFields.size());
            h.writeShort(0);
            h.writeShort(objectStatics.size());
            for (Map.Entry<String, Long> s : objectStatics.entrySet()) {
                h.writeLong(string(s.getKey()));
                h.writeByte(2);
                h.writeLong(s.getValue());
            }
            h.writeShort(objectFields.size());
            for (String f : objectFields) {
                h.writeLong(string(f));
                h.writeByte(2);
            }
            return this;
        }

        /** java.lang.String as JDK 9+ lays it out: a byte[] value and a byte coder (0: LATIN1). */
        Writer stringClassDump(long id, long superId) throws IOException {
            h.writeByte(0x20);
            h.writeLong(id);
            h.writeInt(0);
            h.writeLong(superId);
            for (int i = 0; i < 5; i++) {
                h.writeLong(0);
            }
            h.writeInt(9);
            h.writeShort(0);
            h.writeShort(0);
            h.writeShort(2);
            h.writeLong(string("value"));
            h.writeByte(2);
            h.writeLong(string("coder"));
            h.writeByte(8);
            return this;
        }

        /** A LATIN1 string {@code id} whose value is the byte array {@code arrayId}. */
        Writer string(long id, long arrayId, String text) throws IOException {
            byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
            h.writeByte(0x23);
            h.writeLong(arrayId);
            h.writeInt(0);
            h.writeInt(b.length);
            h.writeByte(8);
            h.write(b);
            h.writeByte(0x21);
            h.writeLong(id);
            h.writeInt(0);
            h.writeLong(2);
            h.writeInt(9);
            h.writeLong(arrayId);
            h.writeByte(0);
            return this;
        }

        Writer instance(long id, long classId, long... fieldValues) throws IOException {
            h.writeByte(0x21);
            h.writeLong(id);
            h.writeInt(0);
            h.writeLong(classId);
            h.writeInt(8 * fieldValues.length);
            for (long v : fieldValues) {
                h.writeLong(v);
            }
            return this;
        }

        Writer array(long id, long classId, long... elements) throws IOException {
            h.writeByte(0x22);
            h.writeLong(id);
            h.writeInt(0);
            h.writeInt(elements.length);
            h.writeLong(classId);
            for (long e : elements) {
                h.writeLong(e);
            }
            return this;
        }

        Writer root(int tag, long id) throws IOException {
            h.writeByte(tag);
            h.writeLong(id);
            switch (tag) {
                case 0x01 -> h.writeLong(id + 1);
                case 0x02, 0x03, 0x08 -> { h.writeInt(1); h.writeInt(0); }
                case 0x04, 0x06 -> h.writeInt(1);
                default -> { }
            }
            return this;
        }

        byte[] bytes() throws IOException {
            record(0x1C, heap.size());
            data.write(heap.toByteArray());
            record(0x2C, 0);
            return out.toByteArray();
        }
    }
}
