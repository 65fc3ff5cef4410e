package org.depengine.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.depengine.benchmarks.workload.OpList;
import org.depengine.benchmarks.workload.Workloads;

/**
 * Turns a {@code run.sh profile} run into the short summary the report quotes ({@link ProfileRun}, as
 * JSON): for every result in JMH's JSON, its allocation per run (JMH's gc profiler) and, from the JFR
 * recording {@link JfrBenchmarkTag} labelled with the same benchmark and parameters, the CPU and
 * execution samples per thread role and the hottest frames and allocations. The recordings themselves
 * (megabytes) are not kept. A program:
 * {@code java -cp benchmarks.jar org.depengine.benchmarks.report.ProfileSummary JMH.json JFR_DIR OUT.json [COMMIT]},
 * run with the JDK that made the recordings.
 */
public final class ProfileSummary {
    /** Frames and allocation sites kept per role: enough to see where the time goes, short enough to quote. */
    static final int TOP = 6;
    static final String PUSHER = "pusher";
    static final String WORKERS = "engine workers";
    static final String POOL = "baseline pool";
    static final String OTHER = "other";
    /** The package of depengine's profiler: its frames on an engine thread's stack are what profiling costs. */
    static final String PROFILER_PACKAGE = "org.depengine.profiler.";

    private ProfileSummary() {
    }

    /**
     * Writes the summary.
     *
     * @param args JMH's JSON result file, the JFR profiler's output folder, the summary to write, and
     *     optionally the git commit the benchmarks were built from
     * @throws IOException if a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3 && args.length != 4) {
            throw new IllegalArgumentException("usage: ProfileSummary JMH.json JFR_DIR OUT.json [COMMIT]");
        }
        ProfileRun run = summarise(Path.of(args[0]), Path.of(args[1]), args.length == 4 ? args[3] : "");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(Path.of(args[2]).toFile(), run);
    }

    static ProfileRun summarise(Path jmhJson, Path jfrDir, String commit) throws IOException {
        Map<String, Path> recordings = recordingsByLabel(jfrDir);
        List<ProfileRun.Profile> profiles = new ArrayList<>();
        String settings = "";
        String javaVersion = System.getProperty("java.runtime.version");
        int cores = Runtime.getRuntime().availableProcessors();
        for (JsonNode entry : RunData.jmhEntries(jmhJson)) {
            if (settings.isEmpty()) {
                settings = RunData.settings(entry);
                javaVersion = entry.path("jdkVersion").asText(javaVersion) + " (" + entry.path("vmName").asText("?") + ")";
            }
            Result r = RunData.result(jmhJson, entry);
            String benchmark = entry.path("benchmark").asText();
            JsonNode gc = entry.path("secondaryMetrics");
            OpList ops = Workloads.forBenchmark(r.workload(), r.shapeParams());
            Path jfr = recordings.get(label(benchmark, r.params()));
            Recording rec = jfr == null ? Recording.EMPTY : Recording.read(jfr, cores);
            profiles.add(new ProfileRun.Profile(benchmark, r.params(), ops == null ? 1 : ops.size(), r.nanos(),
                    metric(gc, "gc.alloc.rate.norm"), metric(gc, "gc.count"), metric(gc, "gc.time"), rec.samples,
                    rec.roles, rec.allocationBytes, rec.allocations));
        }
        return new ProfileRun(Runtime.version().feature(), javaVersion,
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), commit, cores, settings, profiles);
    }

    /** A secondary metric's median (JMH's gc profiler leaves out gc.time when no collection ran: 0 then). */
    private static double metric(JsonNode secondary, String name) {
        JsonNode m = secondary.path(name);
        if (m.isMissingNode()) {
            return name.equals("gc.time") && secondary.has("gc.alloc.rate.norm") ? 0 : Double.NaN;
        }
        JsonNode median = m.path("scorePercentiles").path("50.0");
        return RunData.number(median.isMissingNode() ? m.path("score") : median);
    }

    /** Every labelled recording under {@code dir}, by {@link #label}. */
    private static Map<String, Path> recordingsByLabel(Path dir) throws IOException {
        Map<String, Path> found = new HashMap<>();
        if (!Files.isDirectory(dir)) {
            return found;
        }
        try (Stream<Path> files = Files.walk(dir, 2)) {
            for (Path tag : (Iterable<Path>) files.filter(f -> f.getFileName().toString().equals(JfrBenchmarkTag.FILE))::iterator) {
                Path jfr = tag.resolveSibling("profile.jfr");
                if (!Files.exists(jfr)) {
                    continue;
                }
                Properties p = new Properties();
                try (Reader in = Files.newBufferedReader(tag, StandardCharsets.ISO_8859_1)) {
                    p.load(in);
                }
                Map<String, String> params = new LinkedHashMap<>();
                for (String key : p.stringPropertyNames()) {
                    if (key.startsWith(JfrBenchmarkTag.PARAM)) {
                        params.put(key.substring(JfrBenchmarkTag.PARAM.length()), p.getProperty(key));
                    }
                }
                found.put(label(p.getProperty(JfrBenchmarkTag.BENCHMARK), params), jfr);
            }
        }
        return found;
    }

    /** The benchmark with its parameters in name order: the same for JMH's JSON and the recording's label. */
    static String label(String benchmark, Map<String, String> params) {
        return benchmark + new java.util.TreeMap<>(params);
    }

    /** The role of a thread, from its name: the JMH thread pushes, depengine's threads are the engine's workers. */
    static String role(String thread) {
        if (thread.contains("-jmh-worker-")) {
            return PUSHER;
        }
        if (thread.startsWith("depengine-")) {
            return WORKERS;
        }
        if (thread.startsWith("ForkJoinPool")) {
            return POOL;
        }
        return OTHER;
    }

    /** {@code Type.method}, the type as {@link #simpleName}. */
    static String frame(RecordedFrame f) {
        return simpleName(f.getMethod().getType().getName()) + "." + f.getMethod().getName();
    }

    /**
     * A JVM type name made short: no package, a lambda's generated suffix dropped
     * ({@code Foo$$Lambda$12/0x...} is {@code Foo$$Lambda}), arrays as {@code Foo[]} and {@code long[]}.
     */
    static String simpleName(String type) {
        int dims = 0;
        while (dims < type.length() && type.charAt(dims) == '[') {
            dims++;
        }
        String element = type.substring(dims);
        if (dims > 0) {
            element = element.startsWith("L") && element.endsWith(";") ? element.substring(1, element.length() - 1)
                    : PRIMITIVES.getOrDefault(element, element);
        }
        element = element.replaceAll("\\$\\$Lambda.*", "\\$\\$Lambda");
        return element.substring(element.lastIndexOf('.') + 1) + "[]".repeat(dims);
    }

    private static final Map<String, String> PRIMITIVES = Map.of("Z", "boolean", "B", "byte", "C", "char", "S", "short",
            "I", "int", "J", "long", "F", "float", "D", "double");

    /** Where a sample has no engine frame (the benchmark's own code, the JDK's or JMH's only). */
    static final String NO_ENGINE_FRAME = "(no engine frame)";
    /** Where an allocation has no depengine frame (the JDK's or JMH's code only). */
    static final String NO_DEPENGINE_FRAME = "(no depengine frame)";

    /** The innermost frame of the engine's code (depengine's, the benchmarks' left out), or null. */
    static RecordedFrame innermostEngine(RecordedStackTrace stack) {
        return innermost(stack, type -> type.startsWith("org.depengine.") && !type.startsWith("org.depengine.benchmarks."));
    }

    /** The innermost frame of depengine's code (engine or benchmark; JMH's generated harness left out), or null. */
    static RecordedFrame innermostDepengine(RecordedStackTrace stack) {
        return innermost(stack, type -> type.startsWith("org.depengine.") && !type.startsWith("org.depengine.benchmarks.jmh_generated"));
    }

    /** Whether a JVM type name is one of depengine's profiler's classes. */
    static boolean isProfilerType(String type) {
        return type.startsWith(PROFILER_PACKAGE);
    }

    private static RecordedFrame innermost(RecordedStackTrace stack, java.util.function.Predicate<String> type) {
        if (stack == null) {
            return null;
        }
        for (RecordedFrame f : stack.getFrames()) {
            if (!f.isJavaFrame() || f.getMethod() == null) {
                continue;
            }
            if (type.test(f.getMethod().getType().getName())) {
                return f;
            }
        }
        return null;
    }

    /** One recording, summarised. */
    private static final class Recording {
        static final Recording EMPTY = new Recording();
        long samples;
        List<ProfileRun.Role> roles = List.of();
        double allocationBytes = Double.NaN;
        List<ProfileRun.Share> allocations = List.of();

        /** Per role: threads seen, each thread's CPU loads, samples and frame counts. */
        private static final class RoleData {
            final Set<String> threads = new HashSet<>();
            final Map<String, double[]> cpuByThread = new HashMap<>(); // thread -> {sum of loads, count}
            long samples;
            long profilerSamples; // samples with a profiler frame anywhere on the stack
            final Map<String, Long> self = new HashMap<>();
            final Map<String, Long> engine = new HashMap<>();
        }

        static Recording read(Path jfr, int cores) throws IOException {
            Map<String, RoleData> byRole = new LinkedHashMap<>();
            Map<String, Long> allocated = new HashMap<>();
            Recording r = new Recording();
            r.allocationBytes = 0;
            for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
                switch (e.getEventType().getName()) {
                    case "jdk.ExecutionSample": {
                        RoleData d = byRole.computeIfAbsent(role(threadName(e.getThread("sampledThread"))), k -> new RoleData());
                        d.threads.add(threadName(e.getThread("sampledThread")));
                        d.samples++;
                        r.samples++;
                        RecordedStackTrace stack = e.getStackTrace();
                        if (stack != null && !stack.getFrames().isEmpty()) {
                            d.self.merge(frame(stack.getFrames().get(0)), 1L, Long::sum);
                        }
                        RecordedFrame engine = innermostEngine(stack);
                        d.engine.merge(engine == null ? NO_ENGINE_FRAME : frame(engine), 1L, Long::sum);
                        if (innermost(stack, ProfileSummary::isProfilerType) != null) {
                            d.profilerSamples++;
                        }
                        break;
                    }
                    case "jdk.ThreadCPULoad": {
                        String name = threadName(e.getThread());
                        RoleData d = byRole.computeIfAbsent(role(name), k -> new RoleData());
                        d.threads.add(name);
                        double[] acc = d.cpuByThread.computeIfAbsent(name, k -> new double[2]);
                        acc[0] += e.getFloat("user") + e.getFloat("system");
                        acc[1]++;
                        break;
                    }
                    case "jdk.ObjectAllocationSample": {
                        long weight = e.getLong("weight");
                        RecordedFrame site = innermostDepengine(e.getStackTrace());
                        allocated.merge(simpleName(e.getClass("objectClass").getName()) + " ← "
                                + (site == null ? NO_DEPENGINE_FRAME : frame(site)), weight, Long::sum);
                        r.allocationBytes += weight;
                        break;
                    }
                    default:
                        break;
                }
            }
            List<ProfileRun.Role> roles = new ArrayList<>();
            for (Map.Entry<String, RoleData> en : byRole.entrySet()) {
                RoleData d = en.getValue();
                // Each thread's mean load (a fraction of all cores), summed; NaN when the recording was
                // shorter than ThreadCPULoad's period (no event), rather than a misleading 0.
                double load = d.cpuByThread.isEmpty() ? Double.NaN : 0;
                Map<String, Double> threadCores = new HashMap<>();
                for (Map.Entry<String, double[]> t : d.cpuByThread.entrySet()) {
                    double mean = t.getValue()[0] / t.getValue()[1];
                    load += mean;
                    threadCores.put(t.getKey(), mean * cores);
                }
                roles.add(new ProfileRun.Role(en.getKey(), d.threads.size(), load * cores, top(threadCores), d.samples,
                        top(d.self), top(d.engine), d.profilerSamples));
            }
            roles.sort(Comparator.comparingLong(ProfileRun.Role::samples).reversed());
            r.roles = roles;
            r.allocations = top(allocated);
            return r;
        }

        private static String threadName(RecordedThread t) {
            if (t == null) {
                return "?";
            }
            return t.getJavaName() != null ? t.getJavaName() : String.valueOf(t.getOSName());
        }

        private static List<ProfileRun.Share> top(Map<String, ? extends Number> counts) {
            List<ProfileRun.Share> all = new ArrayList<>();
            counts.forEach((k, v) -> all.add(new ProfileRun.Share(k, v.doubleValue())));
            all.sort(Comparator.comparingDouble(ProfileRun.Share::weight).reversed().thenComparing(ProfileRun.Share::name));
            return List.copyOf(all.subList(0, Math.min(TOP, all.size())));
        }
    }
}
