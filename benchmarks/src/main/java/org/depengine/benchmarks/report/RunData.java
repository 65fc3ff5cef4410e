package org.depengine.benchmarks.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * One stored benchmark run: the JMH JSON results ({@code MODE-jdkN.json}) and the machine file
 * written beside them ({@code MODE-jdkN.properties}, see {@link MachineInfo}).
 */
final class RunData {
    final String mode;
    final int jdk;
    final Properties machine;
    final List<Result> results;
    /** Forks, warm-up and measurement settings, from the first result. */
    final String settings;

    /** Jackson's reader, the one JSON reader of the tests and benchmarks; thread-safe once configured. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private RunData(String mode, int jdk, Properties machine, List<Result> results, String settings) {
        this.mode = mode;
        this.jdk = jdk;
        this.machine = machine;
        this.results = results;
        this.settings = settings;
    }

    /**
     * Reads {@code json} and its properties file.
     *
     * @throws IllegalArgumentException if the name is not {@code MODE-jdkN.json} or the content is not JMH's
     */
    static RunData read(Path json) throws IOException {
        String file = json.getFileName().toString();
        int dash = file.lastIndexOf("-jdk");
        if (dash <= 0 || !file.endsWith(".json")) {
            throw new IllegalArgumentException(json + ": expected a name MODE-jdkN.json (as run.sh writes)");
        }
        String mode = file.substring(0, dash);
        int jdk;
        try {
            jdk = Integer.parseInt(file.substring(dash + 4, file.length() - 5));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(json + ": expected a name MODE-jdkN.json (as run.sh writes)", e);
        }
        Properties machine = new Properties();
        Path props = json.resolveSibling(file.substring(0, file.length() - 5) + ".properties");
        if (Files.exists(props)) {
            try (Reader r = Files.newBufferedReader(props, StandardCharsets.UTF_8)) {
                machine.load(r);
            }
        }
        List<Result> results = new ArrayList<>();
        String settings = "";
        for (JsonNode entry : jmhEntries(json)) {
            if (settings.isEmpty()) {
                settings = settings(entry);
            }
            results.add(result(json, entry));
        }
        return new RunData(mode, jdk, machine, results, settings);
    }

    /**
     * The entries of a JMH JSON result file (one per benchmark and parameter setting).
     *
     * @throws IllegalArgumentException if the file is not JSON or not JMH's array of results
     */
    static JsonNode jmhEntries(Path json) throws IOException {
        JsonNode parsed;
        try {
            parsed = JSON.readTree(json.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(json + ": not JSON: " + e.getOriginalMessage(), e);
        }
        if (parsed == null || !parsed.isArray()) {
            throw new IllegalArgumentException(json + ": not a JMH result file (expected a JSON array)");
        }
        return parsed;
    }

    /** One JMH entry as a result: workload, method, parameters, median and error in ns, fork spread. */
    static Result result(Path json, JsonNode entry) {
        String benchmark = entry.path("benchmark").asText();
        int lastDot = benchmark.lastIndexOf('.');
        int classDot = benchmark.lastIndexOf('.', lastDot - 1);
        if (lastDot < 0 || classDot < 0) {
            throw new IllegalArgumentException(json + ": unexpected benchmark name '" + benchmark + "'");
        }
        String workload = benchmark.substring(classDot + 1, lastDot);
        String method = benchmark.substring(lastDot + 1);
        Map<String, String> params = new LinkedHashMap<>();
        entry.path("params").fields().forEachRemaining(e -> params.put(e.getKey(), e.getValue().asText()));
        JsonNode metric = entry.path("primaryMetric");
        if (!metric.isObject()) {
            throw new IllegalArgumentException(json + ": result '" + benchmark + "' has no primaryMetric object");
        }
        double scale = toNanos(metric.path("scoreUnit").asText());
        JsonNode median = metric.path("scorePercentiles").path("50.0");
        double score = number(median.isMissingNode() || median.isNull() ? metric.path("score") : median);
        double error = number(metric.path("scoreError"));
        return new Result(workload, method, params, score * scale, error * scale, forkSpread(metric.path("rawData")),
                forkMedians(entry.path("secondaryMetrics").path(HostPlacementProfiler.LABEL).path("rawData")));
    }

    static String settings(JsonNode entry) {
        return String.format(Locale.ROOT, "forks %s, warm-up %s × %s, measurement %s × %s",
                entry.path("forks").asText(), entry.path("warmupIterations").asText(), entry.path("warmupTime").asText(),
                entry.path("measurementIterations").asText(), entry.path("measurementTime").asText());
    }

    /** A JSON number, or NaN: JMH writes "NaN" as a string (and a missing error has no number). */
    static double number(JsonNode n) {
        return n.isNumber() ? n.doubleValue() : Double.NaN;
    }

    /** The slowest fork's median over the fastest fork's, from JMH's rawData (one array per fork); NaN below two forks. */
    static double forkSpread(JsonNode rawData) {
        if (!rawData.isArray() || rawData.size() < 2) {
            return Double.NaN;
        }
        List<Double> medians = forkMedians(rawData);
        double min = medians.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = medians.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return Double.isNaN(min) || min <= 0 ? Double.NaN : max / min;
    }

    /** Each fork's median iteration, from JMH's rawData (one array per fork; empty forks left out); empty if none. */
    static List<Double> forkMedians(JsonNode rawData) {
        List<Double> medians = new ArrayList<>();
        if (!rawData.isArray()) {
            return medians;
        }
        for (JsonNode fork : rawData) {
            if (!fork.isArray() || fork.size() == 0) {
                continue;
            }
            double[] v = new double[fork.size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = fork.get(i).asDouble();
            }
            medians.add(Result.median(v));
        }
        return medians;
    }

    /** Nanoseconds per unit of a JMH score unit such as {@code us/op}. */
    static double toNanos(String unit) {
        String u = unit.endsWith("/op") ? unit.substring(0, unit.length() - 3) : unit;
        switch (u) {
            case "ns":
                return 1;
            case "us":
            case "µs":
                return 1e3;
            case "ms":
                return 1e6;
            case "s":
                return 1e9;
            default:
                throw new IllegalArgumentException("unsupported JMH score unit '" + unit
                        + "': the report reads average-time results (ns/op, us/op, ms/op, s/op)");
        }
    }
}
