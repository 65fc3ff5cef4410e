package org.depengine.testkit;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * A heap dump in HPROF format (as {@link HotSpotDiagnosticMXBean#dumpHeap} writes it), indexed to answer one
 * question: which GC root that the dump lists reaches an object, and through which references. Roots are every
 * root record of the dump (Java frames, JNI globals and locals, sticky classes, thread objects, monitors, native
 * stacks, thread blocks, unknown) and every static field of every class. References are object fields and array
 * elements, except the referent of a weak, phantom or final reference, which does not keep its object (a soft
 * reference's does count: a soft cache of failures is a leak too).
 *
 * <p>The whole file is mapped, not read onto the heap; the dump must be under 2 GiB. Object ids are kept in an
 * open-addressing table of file offsets, so a dump of a few million objects indexes in a few tens of MiB.
 */
final class HeapDump {
    // Top-level record tags and heap dump sub-record tags of the HPROF 1.0.2 format.
    private static final int UTF8 = 0x01, LOAD_CLASS = 0x02, HEAP_DUMP = 0x0C, HEAP_DUMP_SEGMENT = 0x1C;
    private static final int CLASS_DUMP = 0x20, INSTANCE_DUMP = 0x21, OBJ_ARRAY_DUMP = 0x22, PRIM_ARRAY_DUMP = 0x23;
    private static final int OBJECT = 2, BYTE = 8, CHAR = 5;
    private static final Map<Integer, String> ROOT_KINDS = Map.of(0xFF, "ROOT_UNKNOWN", 0x01, "ROOT_JNI_GLOBAL", 0x02,
            "ROOT_JNI_LOCAL", 0x03, "ROOT_JAVA_FRAME", 0x04, "ROOT_NATIVE_STACK", 0x05, "ROOT_STICKY_CLASS", 0x06,
            "ROOT_THREAD_BLOCK", 0x07, "ROOT_MONITOR_USED", 0x08, "ROOT_THREAD_OBJ");
    /** Classes whose {@code referent} does not keep its object alive. */
    private static final List<String> NON_STRONG_REFERENCES =
            List.of("java.lang.ref.WeakReference", "java.lang.ref.PhantomReference", "java.lang.ref.FinalReference");

    private record Field(String name, int type) {}

    private record ClassInfo(long id, String name, long superId, long loaderId, List<Field> fields,
            List<Field> statics, List<Long> staticValues) {}

    /** A root the dump lists: its kind, the object it holds, and the thread serial number where it has one. */
    private record Root(String kind, long objectId, int threadSerial, String detail) {}

    /** One reference out of an object: a field or an array element, and the object it names. */
    private record Edge(String via, long target) {}

    private final ByteBuffer buf;
    private final int idSize;
    private final Map<Long, String> utf8 = new HashMap<>();
    private final Map<Long, String> classNames = new HashMap<>();
    private final Map<Long, ClassInfo> classes = new HashMap<>();
    private final LongMap objects = new LongMap(); // object id -> offset of its sub-record's tag
    private final List<Root> roots = new ArrayList<>();
    private final Map<Integer, Long> threadBySerial = new HashMap<>();

    private HeapDump(ByteBuffer buf) throws IOException {
        this.buf = buf;
        int p = 0;
        while (buf.get(p) != 0) {
            p++;
        }
        String format = new String(bytes(0, p), StandardCharsets.US_ASCII);
        if (!format.startsWith("JAVA PROFILE 1.0")) {
            throw new IOException("not an HPROF heap dump: header '" + format + "'");
        }
        idSize = buf.getInt(p + 1);
        if (idSize != 4 && idSize != 8) {
            throw new IOException("HPROF identifier size " + idSize + " is not 4 or 8");
        }
        index(p + 1 + 4 + 8);
    }

    /** Writes a dump of the live objects of this JVM (a full collection runs first) to {@code file}. */
    static void dumpLive(Path file) throws IOException {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(file.toString(), true);
    }

    /** Maps and indexes {@code file}; the file may be deleted once this returns (the mapping stays valid on POSIX). */
    static HeapDump read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() > Integer.MAX_VALUE) {
                throw new IOException("heap dump " + file + " is " + ch.size() + " bytes; at most 2 GiB are supported");
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            return new HeapDump(map.order(ByteOrder.BIG_ENDIAN));
        }
    }

    // ---- indexing ----------------------------------------------------------------------------------

    private void index(int p) throws IOException {
        while (p < buf.limit()) {
            int tag = buf.get(p) & 0xFF;
            long length = Integer.toUnsignedLong(buf.getInt(p + 5));
            int body = p + 9;
            int end = Math.toIntExact(body + length);
            if (tag == UTF8) {
                utf8.put(id(body), new String(bytes(body + idSize, end - body - idSize), StandardCharsets.UTF_8));
            } else if (tag == LOAD_CLASS) {
                classNames.put(id(body + 4), utf8.get(id(body + 8 + idSize)));
            } else if (tag == HEAP_DUMP || tag == HEAP_DUMP_SEGMENT) {
                indexHeap(body, end);
            }
            p = end;
        }
        for (Root r : roots) {
            if (r.kind.equals("ROOT_THREAD_OBJ")) {
                threadBySerial.put(r.threadSerial, r.objectId);
            }
        }
    }

    private void indexHeap(int p, int end) throws IOException {
        while (p < end) {
            int tag = buf.get(p) & 0xFF;
            int at = p++;
            String rootKind = ROOT_KINDS.get(tag);
            if (rootKind != null) {
                long id = id(p);
                p += idSize;
                int serial = -1;
                switch (tag) {
                    case 0x01 -> p += idSize; // JNI global: the global reference's own id
                    case 0x02, 0x03, 0x08 -> { serial = buf.getInt(p); p += 8; } // thread serial, frame or stack
                    case 0x04, 0x06 -> { serial = buf.getInt(p); p += 4; }
                    default -> { }
                }
                roots.add(new Root(rootKind, id, serial, null));
                continue;
            }
            switch (tag) {
                case CLASS_DUMP -> p = indexClass(p, at);
                case INSTANCE_DUMP -> {
                    objects.put(id(p), at);
                    p += idSize + 4 + idSize;
                    p += 4 + buf.getInt(p);
                }
                case OBJ_ARRAY_DUMP -> {
                    objects.put(id(p), at);
                    p += idSize + 4;
                    p += 4 + idSize + buf.getInt(p) * idSize;
                }
                case PRIM_ARRAY_DUMP -> {
                    objects.put(id(p), at);
                    p += idSize + 4;
                    p += 4 + 1 + buf.getInt(p) * size(buf.get(p + 4));
                }
                default -> throw new IOException(String.format("unknown heap dump sub-record 0x%02x at offset %d", tag, at));
            }
        }
    }

    private int indexClass(int p, int at) throws IOException {
        long id = id(p);
        p += idSize + 4;
        long superId = id(p);
        long loaderId = id(p + idSize);
        p += 6 * idSize + 4; // super, loader, signers, protection domain, two reserved; instance size
        int constants = buf.getShort(p) & 0xFFFF;
        p += 2;
        for (int i = 0; i < constants; i++) {
            p += 2 + 1 + size(buf.get(p + 2));
        }
        List<Field> statics = new ArrayList<>();
        List<Long> staticValues = new ArrayList<>();
        int n = buf.getShort(p) & 0xFFFF;
        p += 2;
        for (int i = 0; i < n; i++) {
            int type = buf.get(p + idSize);
            statics.add(new Field(utf8.get(id(p)), type));
            p += idSize + 1;
            staticValues.add(type == OBJECT ? id(p) : 0L);
            p += size(type);
        }
        List<Field> fields = new ArrayList<>();
        n = buf.getShort(p) & 0xFFFF;
        p += 2;
        for (int i = 0; i < n; i++) {
            fields.add(new Field(utf8.get(id(p)), buf.get(p + idSize)));
            p += idSize + 1;
        }
        String name = classNames.getOrDefault(id, "class@" + Long.toHexString(id)).replace('/', '.');
        classes.put(id, new ClassInfo(id, name, superId, loaderId, fields, statics, staticValues));
        objects.put(id, at);
        for (int i = 0; i < statics.size(); i++) {
            if (staticValues.get(i) != 0) {
                roots.add(new Root("static field", staticValues.get(i), -1, name + "." + statics.get(i).name));
            }
        }
        return p;
    }

    // ---- queries -----------------------------------------------------------------------------------

    /** The ids of the instances whose class is {@code className} or a subclass of it. */
    List<Long> instancesOf(String className) {
        List<Long> found = new ArrayList<>();
        objects.forEach((id, offset) -> {
            int at = (int) offset;
            if ((buf.get(at) & 0xFF) == INSTANCE_DUMP && isA(id(at + 1 + idSize + 4), className)) {
                found.add(id);
            }
        });
        return found;
    }

    /** The name of the object's class ({@code Type[]} for an array, {@code java.lang.Class} for a class). */
    String className(long objectId) {
        int at = (int) objects.get(objectId);
        return switch (buf.get(at) & 0xFF) {
            case INSTANCE_DUMP -> classes.get(id(at + 1 + idSize + 4)).name;
            case OBJ_ARRAY_DUMP -> {
                String array = classes.get(id(at + 1 + idSize + 4 + 4)).name;
                yield array.startsWith("[L") ? array.substring(2, array.length() - 1) + "[]" : array;
            }
            case PRIM_ARRAY_DUMP -> "primitive array";
            default -> "java.lang.Class";
        };
    }

    /** The text of the {@code java.lang.String} the object's reference field {@code field} holds, if any. */
    Optional<String> stringField(long objectId, String field) {
        long s = referenceField(objectId, field);
        if (s == 0 || !objects.contains(s) || !className(s).equals("java.lang.String")) {
            return Optional.empty();
        }
        long value = referenceField(s, "value");
        int at = value == 0 ? -1 : (int) objects.get(value);
        if (at < 0 || (buf.get(at) & 0xFF) != PRIM_ARRAY_DUMP) {
            return Optional.empty();
        }
        int p = at + 1 + idSize + 4;
        int length = buf.getInt(p);
        int type = buf.get(p + 4);
        byte[] data = bytes(p + 5, length * size(type));
        if (type == CHAR) {
            return Optional.of(new String(data, StandardCharsets.UTF_16BE));
        }
        // JDK 9+: a byte[] of LATIN1 (coder 0) or of UTF-16 chars in the platform's byte order (coder 1).
        boolean latin1 = instanceValues(s).getOrDefault("coder", 0L) == 0;
        return Optional.of(new String(data, latin1 ? StandardCharsets.ISO_8859_1
                : ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? StandardCharsets.UTF_16BE : StandardCharsets.UTF_16LE));
    }

    /**
     * For each of {@code targets} that a root the dump lists reaches, the shortest such path, written root first,
     * then each reference ({@code Class.field} or {@code Type[i]}), then the object's class. A target no listed
     * root reaches has no entry.
     */
    Map<Long, String> pathsFromListedRoots(Collection<Long> targets) {
        LongMap parent = new LongMap(); // reached object -> the object it was reached from, or ~root index
        long[] queue = new long[1024];
        int head = 0, tail = 0;
        for (int i = 0; i < roots.size(); i++) {
            long id = roots.get(i).objectId;
            if (objects.contains(id) && !parent.contains(id)) {
                parent.put(id, ~i);
                queue = push(queue, tail++, id);
            }
        }
        int missing = (int) targets.stream().filter(t -> !parent.contains(t)).count();
        Set<Long> wanted = new HashSet<>(targets);
        while (head < tail && missing > 0) {
            long from = queue[head++];
            for (Edge e : edges(from)) {
                if (objects.contains(e.target) && !parent.contains(e.target)) {
                    parent.put(e.target, from);
                    queue = push(queue, tail++, e.target);
                    if (wanted.contains(e.target)) {
                        missing--;
                    }
                }
            }
        }
        Map<Long, String> paths = new HashMap<>();
        for (long target : wanted) {
            if (parent.contains(target)) {
                paths.put(target, path(parent, target));
            }
        }
        return paths;
    }

    private String path(LongMap parent, long objectId) {
        List<String> hops = new ArrayList<>();
        long child = objectId;
        long from = parent.get(child);
        while (from >= 0) {
            long target = child;
            hops.add(0, edges(from).stream().filter(e -> e.target == target).findFirst().orElseThrow().via);
            child = from;
            from = parent.get(child);
        }
        Root root = roots.get((int) ~from);
        StringBuilder path = new StringBuilder(describe(root));
        hops.forEach(h -> path.append(" -> ").append(h));
        // A root record's description names the class it holds; a static field's does not.
        return hops.isEmpty() && root.detail == null ? path.toString() : path.append(" -> ").append(className(objectId)).toString();
    }

    private String describe(Root root) {
        if (root.detail != null) {
            return root.kind + " " + root.detail;
        }
        String thread = "";
        Long threadId = threadBySerial.get(root.threadSerial);
        if (threadId != null && objects.contains(threadId)) {
            thread = " of thread '" + stringField(threadId, "name").orElse("?") + "'";
        }
        ClassInfo c = classes.get(root.objectId);
        return root.kind + thread + " holding " + (c != null ? "class " + c.name : className(root.objectId));
    }

    // ---- object layout -----------------------------------------------------------------------------

    /** The references out of an object; a class's are its statics, super class and loader. */
    private List<Edge> edges(long objectId) {
        int at = (int) objects.get(objectId);
        List<Edge> out = new ArrayList<>();
        switch (buf.get(at) & 0xFF) {
            case INSTANCE_DUMP -> {
                long classId = id(at + 1 + idSize + 4);
                boolean weak = NON_STRONG_REFERENCES.stream().anyMatch(r -> isA(classId, r));
                int p = at + 1 + idSize + 4 + idSize + 4;
                for (ClassInfo c = classes.get(classId); c != null; c = classes.get(c.superId)) {
                    for (Field f : c.fields) {
                        if (f.type == OBJECT && !(weak && f.name.equals("referent"))) {
                            add(out, c.name + "." + f.name, id(p));
                        }
                        p += size(f.type);
                    }
                }
            }
            case OBJ_ARRAY_DUMP -> {
                int p = at + 1 + idSize + 4;
                int n = buf.getInt(p);
                p += 4 + idSize;
                String type = className(objectId);
                for (int i = 0; i < n; i++) {
                    add(out, type.substring(0, type.length() - 1) + i + "]", id(p + i * idSize));
                }
            }
            case CLASS_DUMP -> {
                ClassInfo c = classes.get(objectId);
                for (int i = 0; i < c.statics.size(); i++) {
                    add(out, c.name + ".<static " + c.statics.get(i).name + ">", c.staticValues.get(i));
                }
                add(out, c.name + ".<super>", c.superId);
                add(out, c.name + ".<loader>", c.loaderId);
            }
            default -> { }
        }
        return out;
    }

    private static void add(List<Edge> out, String via, long target) {
        if (target != 0) {
            out.add(new Edge(via, target));
        }
    }

    /** Instance field values of an object by field name (references as ids; the nearest class's field wins). */
    private Map<String, Long> instanceValues(long objectId) {
        int at = (int) objects.get(objectId);
        Map<String, Long> values = new HashMap<>();
        int p = at + 1 + idSize + 4 + idSize + 4;
        for (ClassInfo c = classes.get(id(at + 1 + idSize + 4)); c != null; c = classes.get(c.superId)) {
            for (Field f : c.fields) {
                long v = switch (f.type) {
                    case OBJECT -> id(p);
                    case 4, BYTE -> buf.get(p);
                    case CHAR, 9 -> buf.getShort(p);
                    case 6, 10 -> buf.getInt(p);
                    default -> buf.getLong(p);
                };
                values.putIfAbsent(f.name, v);
                p += size(f.type);
            }
        }
        return values;
    }

    private long referenceField(long objectId, String field) {
        int at = objects.contains(objectId) ? (int) objects.get(objectId) : -1;
        return at < 0 || (buf.get(at) & 0xFF) != INSTANCE_DUMP ? 0 : instanceValues(objectId).getOrDefault(field, 0L);
    }

    private boolean isA(long classId, String className) {
        for (ClassInfo c = classes.get(classId); c != null; c = classes.get(c.superId)) {
            if (c.name.equals(className)) {
                return true;
            }
        }
        return false;
    }

    private int size(int type) {
        return switch (type) {
            case OBJECT -> idSize;
            case 4, BYTE -> 1; // boolean, byte
            case CHAR, 9 -> 2; // char, short
            case 6, 10 -> 4; // float, int
            case 7, 11 -> 8; // double, long
            default -> throw new IllegalStateException("unknown HPROF basic type " + type);
        };
    }

    private long id(int p) {
        return idSize == 8 ? buf.getLong(p) : Integer.toUnsignedLong(buf.getInt(p));
    }

    private byte[] bytes(int p, int n) {
        byte[] b = new byte[n];
        buf.get(p, b);
        return b;
    }

    private static long[] push(long[] queue, int at, long id) {
        long[] q = at < queue.length ? queue : java.util.Arrays.copyOf(queue, queue.length * 2);
        q[at] = id;
        return q;
    }
}
