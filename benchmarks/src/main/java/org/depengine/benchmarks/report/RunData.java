package org.depengine.benchmarks.report;

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
        Object parsed = Json.parse(Files.readString(json, StandardCharsets.UTF_8));
        if (!(parsed instanceof List)) {
            throw new IllegalArgumentException(json + ": not a JMH result file (expected a JSON array)");
        }
        List<Result> results = new ArrayList<>();
        String settings = "";
        for (Object o : (List<?>) parsed) {
            Map<?, ?> entry = (Map<?, ?>) o;
            if (settings.isEmpty()) {
                settings = settings(entry);
            }
            results.add(result(json, entry));
        }
        return new RunData(mode, jdk, machine, results, settings);
    }

    private static Result result(Path json, Map<?, ?> entry) {
        String benchmark = String.valueOf(entry.get("benchmark"));
        int lastDot = benchmark.lastIndexOf('.');
        int classDot = benchmark.lastIndexOf('.', lastDot - 1);
        if (lastDot < 0 || classDot < 0) {
            throw new IllegalArgumentException(json + ": unexpected benchmark name '" + benchmark + "'");
        }
        String workload = benchmark.substring(classDot + 1, lastDot);
        String method = benchmark.substring(lastDot + 1);
        Map<String, String> params = new LinkedHashMap<>();
        Object p = entry.get("params");
        if (p instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) p).entrySet()) {
                params.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
            }
        }
        Map<?, ?> metric = (Map<?, ?>) entry.get("primaryMetric");
        double scale = toNanos(String.valueOf(metric.get("scoreUnit")));
        double score = number(metric.get("score"));
        Object percentiles = metric.get("scorePercentiles");
        if (percentiles instanceof Map && ((Map<?, ?>) percentiles).get("50.0") != null) {
            score = number(((Map<?, ?>) percentiles).get("50.0"));
        }
        double error = number(metric.get("scoreError"));
        return new Result(workload, method, params, score * scale, error * scale);
    }

    private static String settings(Map<?, ?> entry) {
        return String.format(Locale.ROOT, "forks %s, warm-up %s × %s, measurement %s × %s",
                integer(entry.get("forks")), integer(entry.get("warmupIterations")), entry.get("warmupTime"),
                integer(entry.get("measurementIterations")), entry.get("measurementTime"));
    }

    private static String integer(Object o) {
        return o instanceof Double ? String.valueOf(((Double) o).longValue()) : String.valueOf(o);
    }

    private static double number(Object o) {
        if (o instanceof Double) {
            return (Double) o;
        }
        try {
            return Double.parseDouble(String.valueOf(o)); // JMH writes "NaN" as a string
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
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
