package org.depengine.profiler;

import static org.depengine.testkit.Json.arr;
import static org.depengine.testkit.Json.obj;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.depengine.testkit.Json;

/** A parsed trace file with the views the tests ask about. */
final class TraceView {
    final Map<String, Object> root;
    final List<Map<String, Object>> events = new ArrayList<>();
    final Map<Integer, String> processNames = new HashMap<>();
    final Map<String, String> threadNames = new HashMap<>(); // "pid/tid" -> name

    TraceView(String json) {
        root = obj(Json.parse(json));
        for (Object e : arr(root.get("traceEvents"))) {
            Map<String, Object> ev = obj(e);
            events.add(ev);
            if ("M".equals(ev.get("ph")) && "process_name".equals(ev.get("name"))) {
                processNames.put(num(ev, "pid"), (String) obj(ev.get("args")).get("name"));
            }
            if ("M".equals(ev.get("ph")) && "thread_name".equals(ev.get("name"))) {
                threadNames.put(num(ev, "pid") + "/" + num(ev, "tid"), (String) obj(ev.get("args")).get("name"));
            }
        }
    }

    static TraceView read(Path p) throws IOException {
        return new TraceView(Files.readString(p, StandardCharsets.UTF_8));
    }

    static int num(Map<String, Object> ev, String key) {
        return ((Double) ev.get(key)).intValue();
    }

    static double d(Map<String, Object> ev, String key) {
        return (Double) ev.get(key);
    }

    List<Map<String, Object>> ph(String ph) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> e : events) {
            if (ph.equals(e.get("ph"))) {
                out.add(e);
            }
        }
        return out;
    }

    /** Complete events of ops' host parts (cat op or op,host; not the members of bulks). */
    List<Map<String, Object>> hostOps() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> e : ph("X")) {
            String cat = String.valueOf(e.get("cat"));
            if (!cat.contains("device") && !cat.contains("member")) {
                out.add(e);
            }
        }
        return out;
    }

    /** Complete events of the members of bulks' merged ops (cat op,member), in the trace's order. */
    List<Map<String, Object>> members() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> e : ph("X")) {
            if ("op,member".equals(e.get("cat"))) {
                out.add(e);
            }
        }
        return out;
    }

    List<Map<String, Object>> deviceParts() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Object> e : ph("X")) {
            if (String.valueOf(e.get("cat")).contains("device")) {
                out.add(e);
            }
        }
        return out;
    }

    Map<String, Object> hostOp(String name) {
        for (Map<String, Object> e : hostOps()) {
            if (name.equals(e.get("name"))) {
                return e;
            }
        }
        throw new AssertionError("no op " + name + " in trace");
    }

    String processOf(Map<String, Object> ev) {
        return processNames.get(num(ev, "pid"));
    }

    String laneOf(Map<String, Object> ev) {
        return processOf(ev) + "/" + threadNames.get(num(ev, "pid") + "/" + num(ev, "tid"));
    }

    /** "producer->consumer" per flow, matching s and f by id, and checking they sit inside slices. */
    Set<String> flows() {
        Map<Integer, Map<String, Object>> starts = new HashMap<>();
        for (Map<String, Object> s : ph("s")) {
            starts.put(num(s, "id"), s);
        }
        Set<String> out = new TreeSet<>();
        for (Map<String, Object> f : ph("f")) {
            Map<String, Object> s = starts.remove(num(f, "id"));
            if (s == null) {
                throw new AssertionError("flow end without start: " + f);
            }
            if (!"e".equals(f.get("bp"))) {
                throw new AssertionError("flow end must bind to the enclosing slice: " + f);
            }
            out.add(enclosing(s).get("name") + "->" + enclosing(f).get("name"));
        }
        if (!starts.isEmpty()) {
            throw new AssertionError("flow starts without end: " + starts.values());
        }
        return out;
    }

    /** The complete event on the same lane that holds ts. */
    Map<String, Object> enclosing(Map<String, Object> point) {
        double ts = d(point, "ts");
        for (Map<String, Object> x : ph("X")) {
            if (num(x, "pid") == num(point, "pid") && num(x, "tid") == num(point, "tid")
                    && d(x, "ts") <= ts && ts <= d(x, "ts") + d(x, "dur")) {
                return x;
            }
        }
        throw new AssertionError("no slice encloses " + point);
    }

    Map<String, Object> otherData() {
        return obj(root.get("otherData"));
    }
}
