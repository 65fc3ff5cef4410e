package org.depengine.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The table of {@code MetricsCost}: per comparison, engine and shape, the ns per op with and without (the
 * meters bound and scraped, or 1 op in 64 timed), from the same forks, iterations alternating (odd
 * iterations, warm-up included, are "with"); the ratio per fork (the median of its "with" iterations over
 * the median of its "without" ones), and over all iterations.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar org.depengine.benchmarks.report.MetricsCostReport
 * RESULT.json} (JMH's {@code -rf json} output); prints Markdown.
 */
public final class MetricsCostReport {
    private MetricsCostReport() {
    }

    /** Entry point: see the class comment. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: MetricsCostReport RESULT.json");
            System.exit(2);
        }
        print(new ObjectMapper().readTree(Path.of(args[0]).toFile()), System.out);
    }

    /** Writes the table for JMH's result tree {@code results}. */
    static void print(JsonNode results, PrintStream out) {
        out.println("| compare | engine | shape | without: ns/op, median (iteration range) | with: ns/op, median "
                + "(iteration range) | with ÷ without, per fork | with ÷ without, all iterations |");
        out.println("|---|---|---|---:|---:|---:|---:|");
        for (JsonNode r : results) {
            if (!r.path("benchmark").asText().endsWith("MetricsCost.push")) {
                continue;
            }
            int warmups = r.path("warmupIterations").asInt();
            List<Double> on = new ArrayList<>();
            List<Double> off = new ArrayList<>();
            List<String> perFork = new ArrayList<>();
            for (JsonNode fork : r.path("primaryMetric").path("rawData")) {
                List<Double> forkOn = new ArrayList<>();
                List<Double> forkOff = new ArrayList<>();
                for (int i = 0; i < fork.size(); i++) {
                    boolean with = (warmups + i + 1) % 2 == 1; // odd iterations are "with"
                    (with ? forkOn : forkOff).add(fork.get(i).asDouble());
                }
                on.addAll(forkOn);
                off.addAll(forkOff);
                perFork.add(String.format(Locale.ROOT, "%.3f", median(forkOn) / median(forkOff)));
            }
            out.printf(Locale.ROOT, "| %s | %s | %s | %.0f (%.0f–%.0f) | %.0f (%.0f–%.0f) | %s | %.3f |%n",
                    r.path("params").path("compare").asText(), r.path("params").path("engine").asText(), r.path("params").path("shape").asText(),
                    median(off), Collections.min(off), Collections.max(off), median(on), Collections.min(on),
                    Collections.max(on), String.join(", ", perFork), median(on) / median(off));
        }
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        int n = s.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
