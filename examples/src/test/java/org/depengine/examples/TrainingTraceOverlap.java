package org.depengine.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.testkit.Json;

/**
 * What a {@link MultiDeviceTraining} trace says about communication and compute, per KVStore round of
 * the weights: when each layer's gradient left (the start of its first device-to-host copy) and its
 * weights were back (the end of its last host-to-device copy), whether fc1's came back before fc2's
 * (fc2's is pushed first, fc1's has the higher priority), and how much compute (forward, backward,
 * loss) ran on the trace's devices inside the window from the first push to the last pull.
 *
 * <p>The store's op names carry no round (they are built once per key), so a copy's round is its
 * place among the copies of the same name: a key's calls run in call order, and each call copies once
 * per value or out, so the n-th run of {@code kvstore push fc1.w: copy value 0 to host} belongs to
 * the key's n-th push in the trace, as the n-th run of {@code kvstore pull fc1.w: copy to out 0} to
 * its n-th pull after the layer's first push (the trainer pulls each layer once after each push; the
 * pulls before any push read the init, round 0).
 */
final class TrainingTraceOverlap {
    private static final Pattern COPY = Pattern.compile("kvstore (push|pull) (fc[12])\\.w: copy (?:value |to out )(\\d+)");
    private static final Pattern COMPUTE = Pattern.compile("forward|backward|loss and gradient");

    private TrainingTraceOverlap() {
    }

    /** One line of findings for the trace at {@code trace}. */
    @SuppressWarnings("unchecked")
    static String summary(Path trace) throws IOException {
        Map<String, Object> json = (Map<String, Object>) Json.parse(Files.readString(trace));
        Map<Integer, double[]> rounds = new HashMap<>(); // push fc1, push fc2, pull fc1, pull fc2 (µs)
        // Runs of each copy's name so far, in start order; "kvstore push fcN" once the layer pushed.
        Map<String, Integer> runs = new HashMap<>();
        List<double[]> compute = new ArrayList<>();
        List<Map<String, Object>> events = new ArrayList<>();
        for (Object o : (List<Object>) json.get("traceEvents")) {
            Map<String, Object> e = (Map<String, Object>) o;
            if ("X".equals(e.get("ph"))) {
                events.add(e);
            }
        }
        events.sort((a, b) -> Double.compare((Double) a.get("ts"), (Double) b.get("ts")));
        for (Map<String, Object> e : events) {
            String name = (String) e.get("name");
            double from = (Double) e.get("ts");
            double to = from + (Double) e.get("dur");
            Matcher m = COPY.matcher(name);
            if (m.lookingAt()) {
                boolean push = m.group(1).equals("push");
                if (!push && !runs.containsKey("kvstore push " + m.group(2))) {
                    continue; // a pull of the init, before the layer's first push
                }
                if (push) {
                    runs.putIfAbsent("kvstore push " + m.group(2), 0);
                }
                int round = runs.merge(m.group(0), 1, Integer::sum);
                double[] r = rounds.computeIfAbsent(round, k -> new double[] {
                    Double.MAX_VALUE, Double.MAX_VALUE, 0, 0});
                int layer = m.group(2).equals("fc1") ? 0 : 1;
                if (m.group(1).equals("push")) {
                    r[layer] = Math.min(r[layer], from);
                } else {
                    r[2 + layer] = Math.max(r[2 + layer], to);
                }
            } else if (COMPUTE.matcher(name).find()) {
                compute.add(new double[] {from, to});
            }
        }
        List<Double> fc1 = new ArrayList<>();
        List<Double> fc2 = new ArrayList<>();
        List<Double> windows = new ArrayList<>();
        List<Double> inside = new ArrayList<>();
        int fc1First = 0;
        for (double[] r : rounds.values()) {
            if (r[0] == Double.MAX_VALUE || r[1] == Double.MAX_VALUE || r[2] == 0 || r[3] == 0) {
                continue; // a round cut by the trace's window
            }
            fc1First += r[2] < r[3] ? 1 : 0;
            fc1.add(r[2] - r[0]);
            fc2.add(r[3] - r[1]);
            double a = Math.min(r[0], r[1]);
            double b = Math.max(r[2], r[3]);
            windows.add(b - a);
            inside.add(busy(compute, a, b));
        }
        double computeTotal = busy(compute, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
        return String.format(Locale.ROOT, "%s: %d rounds; fc1's weights back before fc2's in %d; gradient out to weights "
                + "back (median): fc1 %.2f ms, fc2 %.2f ms; window from the first push to the last pull (median) %.2f ms, "
                + "compute inside it %.2f ms; in all: windows %.0f ms, compute %.0f ms, of which inside windows %.0f ms",
                trace.getFileName(), windows.size(), fc1First, median(fc1) / 1e3, median(fc2) / 1e3, median(windows) / 1e3,
                median(inside) / 1e3, sum(windows) / 1e3, computeTotal / 1e3, sum(inside) / 1e3);
    }

    /** The time within {@code [a, b]} covered by at least one of {@code ops}. */
    private static double busy(List<double[]> ops, double a, double b) {
        List<double[]> in = new ArrayList<>();
        for (double[] op : ops) {
            if (op[1] > a && op[0] < b) {
                in.add(new double[] {Math.max(op[0], a), Math.min(op[1], b)});
            }
        }
        in.sort((x, y) -> Double.compare(x[0], y[0]));
        double total = 0;
        double end = Double.NEGATIVE_INFINITY;
        for (double[] op : in) {
            if (op[1] > end) {
                total += op[1] - Math.max(op[0], end);
                end = op[1];
            }
        }
        return total;
    }

    private static double median(List<Double> v) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static double sum(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).sum();
    }
}
