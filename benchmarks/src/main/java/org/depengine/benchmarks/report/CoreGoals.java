package org.depengine.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.benchmarks.workload.Workloads;

/**
 * Issue 37's speed goals, judged from one run of {@code benchmarks/core-goals.sh}: the push path (JMH
 * JSON of {@code LinearChain}, {@code Independent}, {@code RandomDag} on every engine and cf), the
 * replays (JMH JSON of {@code Replay}), and MultiDeviceTraining's small-op variant (the table
 * {@code multidevice-training.sh} prints). Prints a Markdown table: each goal, its figures (ns per op,
 * every ratio within the same run) and met or missed.
 *
 * <pre>java -cp benchmarks.jar org.depengine.benchmarks.report.CoreGoals PUSH.json REPLAY.json MDT.txt</pre>
 */
public final class CoreGoals {
    private static final List<String> SHAPES = List.of("chain", "independent", "mxnet", "wide");

    private final List<Result> push = new ArrayList<>();
    private final List<Result> replay = new ArrayList<>();
    private final StringBuilder out = new StringBuilder();

    private CoreGoals() {
    }

    /**
     * @param args the push path's JMH JSON, the replays' JMH JSON, and MultiDeviceTraining's output
     *     (each may be {@code -} when not measured)
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: CoreGoals PUSH.json REPLAY.json MDT.txt (- for one not measured)");
            System.exit(2);
        }
        CoreGoals g = new CoreGoals();
        g.read(args[0], g.push);
        g.read(args[1], g.replay);
        g.table(args[2].equals("-") ? null : Files.readString(Path.of(args[2]), StandardCharsets.UTF_8));
        System.out.print(g.out);
    }

    private void read(String file, List<Result> into) throws IOException {
        if (file.equals("-")) {
            return;
        }
        Path p = Path.of(file);
        for (JsonNode e : RunData.jmhEntries(p)) {
            into.add(RunData.result(p, e));
        }
    }

    /** ns per op of {@code contender} on {@code shape} pushed one by one (push-path run); null if not measured. */
    private Double pushed(String shape, String contender) {
        String workload = switch (shape) {
            case "chain" -> "LinearChain";
            case "independent" -> "Independent";
            default -> "RandomDag";
        };
        for (Result r : push) {
            if (r.workload().equals(workload) && contender.equals(contender(r))
                    && (!workload.equals("RandomDag") || (shape.equals(r.params().get("shape"))
                    && !"on".equals(r.params().get("profiling"))))) {
                return r.nanos() / Workloads.forBenchmark(workload, r.params()).size();
            }
        }
        return null;
    }

    /** ns per op of {@code contender} in the replay run, {@code graph} "1024" or "whole"; null if not measured. */
    private Double replayed(String shape, String graph, String contender) {
        for (Result r : replay) {
            if (r.workload().equals("Replay") && shape.equals(r.params().get("shape")) && graph.equals(r.params().get("graph"))
                    && contender.equals(contender(r))) {
                return r.nanos() / Workloads.forBenchmark("Replay", r.params()).size();
            }
        }
        return null;
    }

    private static String contender(Result r) {
        String e = r.params().get("engine");
        return e != null ? e : r.params().get("baseline");
    }

    private void table(String mdt) {
        out.append("| goal | figures (ns per op; ratios within one run) | status |\n|---|---|---|\n");
        for (String shape : List.of("chain", "independent")) {
            Double naive = pushed(shape, "naive");
            Double cf = pushed(shape, "cf");
            row("pushed, naive ≤ 70 ns/op: " + shape, naive == null ? null
                    : ns(naive) + " (cf " + ns(cf) + ")", naive == null ? null : naive <= 70);
        }
        for (String shape : SHAPES) {
            Double naive = pushed(shape, "naive");
            for (String threaded : List.of("pooled", "perdevice")) {
                Double t = pushed(shape, threaded);
                Double ratio = t == null || naive == null ? null : t / naive;
                row("pushed, " + threaded + " ≤ 2× naive: " + shape, ratio == null ? null
                        : ns(t) + " vs " + ns(naive) + ": " + x(ratio), ratio == null ? null : ratio <= 2);
            }
        }
        for (String graph : List.of("1024", "whole")) {
            String what = graph.equals("whole") ? " (whole list, one graph)" : " (a 1,024-op step)";
            for (String shape : SHAPES) {
                Double r = replayed(shape, graph, "naive+replay");
                row("replayed, naive ≤ 40 ns/op: " + shape + what, r == null ? null
                        : ns(r) + " (pushed " + ns(replayed(shape, graph, "naive")) + ")", r == null ? null : r <= 40);
                for (String threaded : List.of("pooled", "perdevice")) {
                    Double rep = replayed(shape, graph, threaded + "+replay");
                    Double pus = replayed(shape, graph, threaded);
                    Double ratio = rep == null || pus == null ? null : rep / pus;
                    row("replayed, " + threaded + " ≤ 0.3× pushed: " + shape + what, ratio == null ? null
                            : ns(rep) + " vs " + ns(pus) + ": " + x(ratio), ratio == null ? null : ratio <= 0.3);
                }
            }
        }
        if (mdt != null) {
            // small: 60 epochs, mostly the JIT's warm-up; small-steady: 600 epochs, past it
            for (String variant : List.of("small", "small-steady")) {
                String epochs = variant.equals("small") ? "60 epochs" : "600 epochs";
                for (String capture : List.of("on", "off")) {
                    Matcher m = Pattern.compile("\\| " + variant + " \\| " + capture
                            + " \\| ([0-9.]+) \\(([0-9.]+)–([0-9.]+)\\)").matcher(mdt);
                    boolean found = m.find();
                    Double ratio = found ? Double.parseDouble(m.group(1)) : null;
                    row("MultiDeviceTraining --hidden 8 --batch 8, " + epochs + ", capture " + capture
                            + ": perdevice ≤ 1.2× naive (epoch time)",
                            found ? x(ratio) + " (median over rounds; min–max " + m.group(2) + "–" + m.group(3) + ")" : null,
                            found ? ratio <= 1.2 : null);
                }
            }
        }
        out.append('\n');
    }

    private void row(String goal, String figures, Boolean met) {
        out.append("| ").append(goal).append(" | ").append(figures == null ? "–" : figures).append(" | ")
                .append(met == null ? "not measured" : met ? "met" : "**missed**").append(" |\n");
    }

    private static String ns(Double v) {
        return v == null ? "–" : v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String x(double ratio) {
        return String.format(Locale.ROOT, "%.2f×", ratio);
    }
}
