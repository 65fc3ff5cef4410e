package org.depengine.examples;

import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.profiler.Profiler;

/**
 * The two-layer network of {@code docs/design.md}, trained data-parallel on several devices, written as a plain
 * serial program of pushes. Per batch, each device gets its slice of the samples and runs forward and
 * backward; each layer's gradient is copied to the host as soon as it exists; the host sums the
 * gradients (in device order, so the result is the same whatever finishes first), takes an SGD step
 * and copies the new weights back to every device. Nothing here waits: the engine overlaps the copies
 * of one layer with the computation of the other, one device with the other, and the next batch's
 * loads with this batch's update.
 *
 * <p>Usage: {@code MultiDeviceTraining [--engine naive|pooled|perdevice] [--devices cpu:0,cpu:1]
 * [--data file.csv] [--epochs N] [--batch N] [--hidden N] [--lr X] [--seed N] [--trace file.json|off] [--help]}.
 */
public final class MultiDeviceTraining {
    private static final String DEFAULT_DEVICES = "cpu:0,cpu:1";
    private static final int BAR = 30;

    private final Engine engine;
    private final List<Replica> replicas;
    private final Context host;
    private final HostModel model;
    private final TrainingData data;
    private final int batch;
    private final float lr;

    /** What the metrics ops add up; touched only by ops that write {@link #progressVar}. */
    private final Progress progress = new Progress();
    private final VarHandle progressVar;

    private static final class Progress {
        double lossSum;
        long correct;
        long seen;
        int batches;
        final List<Double> lossCurve = new ArrayList<>();
        final List<Long> epochEnds = new ArrayList<>();
    }

    private MultiDeviceTraining(Engine engine, List<Context> devices, Context host, TrainingData data, int batch,
                                int hidden, float lr, long seed) {
        this.engine = engine;
        this.host = host;
        this.data = data;
        this.batch = batch;
        this.lr = lr;
        int maxRows = (batch + devices.size() - 1) / devices.size();
        replicas = new ArrayList<>();
        for (Context c : devices) {
            replicas.add(new Replica(engine, c, maxRows, data.features, hidden, data.classes));
        }
        model = new HostModel(engine, data.features, hidden, data.classes, seed + 1);
        progressVar = engine.newVariable("progress");
    }

    /** Entry point. */
    public static void main(String[] args) throws IOException {
        Args a = Args.parse(args, "--devices", "--data", "--epochs", "--batch", "--hidden", "--lr", "--seed", "--trace");
        if (a.help) {
            System.out.println("usage: MultiDeviceTraining [--engine naive|pooled|perdevice] [--devices LIST] [--data FILE.csv]\n"
                    + "       [--epochs N] [--batch N] [--hidden N] [--lr X] [--seed N] [--trace FILE.json|off]\n"
                    + "Trains a two-layer network (fc1, ReLU, fc2, softmax cross-entropy) data-parallel on the listed\n"
                    + "devices (default " + DEFAULT_DEVICES + "; e.g. opencl:0,cpu:0 or cuda:0,cuda:1): each device\n"
                    + "runs its slice of every batch, gradients go to the host as soon as each layer has one, the host\n"
                    + "sums them and takes an SGD step, and the weights go back; the engine overlaps it all.\n"
                    + "Data: a seeded 3-class spiral (600 samples), or --data with lines 'feature,...,label'.\n"
                    + "Defaults: --epochs 30 --batch 60 --hidden 64 --lr 0.8 --seed 1;\n"
                    + "--trace defaults to MultiDeviceTraining.trace.json in the temporary directory (an .html beside it);\n"
                    + "--trace off runs without the profiler.");
            return;
        }
        List<Context> devices = parseDevices(a.option("--devices", DEFAULT_DEVICES));
        int epochs = a.intOption("--epochs", 30, 1, 1_000_000);
        int batchSize = a.intOption("--batch", 60, 1, 1 << 20);
        int hidden = a.intOption("--hidden", 64, 1, 1 << 14);
        float lr = (float) a.doubleOption("--lr", 0.8, 0, 1000);
        long seed = a.intOption("--seed", 1, 0, Integer.MAX_VALUE);
        String dataFile = a.option("--data", null);
        TrainingData data = dataFile == null ? TrainingData.spiral(200, 3, 0.15, seed) : TrainingData.csv(Path.of(dataFile));
        batchSize = Math.min(batchSize, data.rows);
        if (batchSize < devices.size()) {
            throw new IllegalArgumentException("--batch " + batchSize + " is smaller than the " + devices.size()
                    + " devices: each device needs at least one sample per batch");
        }
        String traceOption = a.option("--trace",
                Path.of(System.getProperty("java.io.tmpdir"), "MultiDeviceTraining.trace.json").toString());
        Path trace = traceOption.equals("off") ? null : Path.of(traceOption);
        Context host = hostContext(devices);

        try (Engine engine = Engine.create(a.engine)) {
            MultiDeviceTraining run = new MultiDeviceTraining(engine, devices, host, data, batchSize, hidden, lr, seed);
            System.out.printf("engine %s; devices %s; host ops (gradient sums, SGD) on %s%n", engine.name(),
                    join(devices), host);
            System.out.printf("data: %s; batch %d (%s per device); hidden %d; lr %s; %d epochs%n", data.description,
                    batchSize, run.rowsPerDeviceText(), hidden, lr, epochs);
            // Ring sizes and the like come from -Ddepengine.profiler.* (see profiler/README.md).
            Profiler profiler = trace == null ? null
                    : Profiler.Builder.fromSystemProperties().mode(Profiler.Mode.ALL).build().start(engine);
            long t0 = System.nanoTime();
            run.pushTraining(epochs, seed);
            double accuracy = run.evaluate();
            engine.waitForAll();
            long t1 = System.nanoTime();
            if (profiler != null) {
                profiler.stop();
                profiler.dump(trace);
                profiler.writeHtml(htmlBeside(trace));
            }

            System.out.printf(Locale.ROOT, "final accuracy on all %d samples: %.1f%%%n", data.rows, 100 * accuracy);
            List<Long> ends = run.progress.epochEnds;
            double first = (ends.get(0) - t0) / 1e6;
            double rest = epochs > 1 ? (ends.get(epochs - 1) - ends.get(0)) / 1e6 / (epochs - 1) : first;
            System.out.printf(Locale.ROOT, "time per epoch: %.1f ms (mean of epochs 2..%d; epoch 1 with warm-up: %.1f ms); "
                    + "total %.2f s%n", rest, Math.max(2, epochs), first, (t1 - t0) / 1e9);
            if (profiler != null) {
                System.out.printf("trace: %s (%d ops; open in https://ui.perfetto.dev or chrome://tracing)%n",
                        trace.toAbsolutePath(), profiler.stats().opCount());
                System.out.printf("timeline: %s (open in a browser)%n", htmlBeside(trace).toAbsolutePath());
            }
        }
    }

    /** Pushes every epoch: a shuffle, then each batch's device work, gradient copies, SGD and weight copies. */
    private void pushTraining(int epochs, long seed) {
        for (Replica r : replicas) {
            r.pushWeightsIn(engine, r.fc1, model.fc1);
            r.pushWeightsIn(engine, r.fc2, model.fc2);
        }
        // Two shuffled copies of the data, alternating by epoch, so that the next epoch's shuffle
        // overlaps this epoch's copies to the devices.
        HostData[] epochData = {
            new HostData(engine, "epoch data A", data.rows, data.features),
            new HostData(engine, "epoch data B", data.rows, data.features)
        };
        int batches = (data.rows + batch - 1) / batch;
        for (int e = 0; e < epochs; e++) {
            HostData src = epochData[e % 2];
            src.pushShuffle(engine, host, data, seed * 1_000_003L + e, "shuffle epoch " + (e + 1));
            for (int b = 0; b < batches; b++) {
                int first = b * batch;
                pushBatch(src, first, Math.min(batch, data.rows - first), true, batches);
            }
            pushEpochReport(e + 1, epochs);
        }
    }

    /** Pushes a forward pass over all the data, unshuffled, with the trained weights; waits; returns the accuracy. */
    private double evaluate() {
        HostData all = new HostData(engine, "all data", data.rows, data.features);
        all.fill(data);
        int batches = (data.rows + batch - 1) / batch;
        for (int b = 0; b < batches; b++) {
            int first = b * batch;
            pushBatch(all, first, Math.min(batch, data.rows - first), false, batches);
        }
        engine.waitForVar(progressVar);
        return (double) progress.correct / progress.seen;
    }

    private void pushBatch(HostData src, int first, int size, boolean train, int batchesPerEpoch) {
        int[] rows = split(size, replicas.size());
        List<Replica> active = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        int start = first;
        for (int d = 0; d < replicas.size(); d++) {
            if (rows[d] == 0) {
                continue;
            }
            Replica r = replicas.get(d);
            r.pushLoad(engine, src, start, rows[d]);
            r.pushForward(engine, rows[d], train, 1f / size); // the gradient of the mean loss over the whole batch
            if (train) {
                r.pushBackward(engine, rows[d]);
            }
            active.add(r);
            starts.add(start);
            start += rows[d];
        }
        pushMetrics(src, active, starts, rows, train, batchesPerEpoch);
        if (train) {
            List<Replica.Dense> fc2 = new ArrayList<>();
            List<Replica.Dense> fc1 = new ArrayList<>();
            for (Replica r : active) {
                fc2.add(r.fc2);
                fc1.add(r.fc1);
            }
            model.pushSgd(engine, host, model.fc2, fc2, lr);
            for (Replica r : replicas) {
                r.pushWeightsIn(engine, r.fc2, model.fc2);
            }
            model.pushSgd(engine, host, model.fc1, fc1, lr);
            for (Replica r : replicas) {
                r.pushWeightsIn(engine, r.fc1, model.fc1);
            }
        }
    }

    /** Adds a batch's loss and correct predictions to {@link #progress}, in device order; draws the bar. */
    private void pushMetrics(HostData src, List<Replica> active, List<Integer> starts, int[] rows, boolean train,
                             int batchesPerEpoch) {
        List<VarHandle> reads = new ArrayList<>();
        reads.add(src.var);
        for (Replica r : active) {
            reads.add(r.hostOut);
        }
        int classes = data.classes;
        boolean live = train && System.console() != null;
        engine.pushSync(rc -> {
            IntBuffer labels = src.labels();
            int k = 0;
            for (int d = 0; d < replicas.size(); d++) {
                if (rows[d] == 0) {
                    continue;
                }
                Replica r = active.get(k);
                int first = starts.get(k++);
                FloatBuffer loss = r.hostLoss();
                FloatBuffer logits = r.hostLogits();
                for (int i = 0; i < rows[d]; i++) {
                    progress.lossSum += loss.get(i);
                    int best = 0;
                    for (int c = 1; c < classes; c++) {
                        if (logits.get(i * classes + c) > logits.get(i * classes + best)) {
                            best = c;
                        }
                    }
                    progress.correct += best == labels.get(first + i) ? 1 : 0;
                }
                progress.seen += rows[d];
            }
            progress.batches++;
            if (live) {
                System.out.print("\r" + bar(progress.batches, batchesPerEpoch));
                System.out.flush();
            }
        }, host, reads, List.of(progressVar), FnProperty.NORMAL, 0, train ? "metrics" : "evaluation metrics");
    }

    /** Prints the epoch's line once its last batch's metrics are in, then starts the next epoch's sums. */
    private void pushEpochReport(int epoch, int epochs) {
        String overwrite = System.console() != null ? "\r" : ""; // over the live bar, on a terminal
        engine.pushSync(rc -> {
            long now = System.nanoTime();
            List<Long> ends = progress.epochEnds;
            double loss = progress.lossSum / progress.seen;
            String ms = ends.isEmpty() ? "" : String.format(Locale.ROOT, "  %6.1f ms", (now - ends.get(ends.size() - 1)) / 1e6);
            System.out.printf(Locale.ROOT, "%sepoch %" + digits(epochs) + "d/%d %s loss %.5f  acc %5.1f%%%s%n", overwrite, epoch, epochs,
                    bar(1, 1), loss, 100.0 * progress.correct / progress.seen, ms);
            progress.lossCurve.add(loss);
            ends.add(now);
            progress.lossSum = 0;
            progress.correct = 0;
            progress.seen = 0;
            progress.batches = 0;
        }, host, List.of(), List.of(progressVar), FnProperty.NORMAL, 0, "epoch report");
    }

    private String rowsPerDeviceText() {
        int[] rows = split(batch, replicas.size());
        StringBuilder sb = new StringBuilder();
        for (int r : rows) {
            sb.append(sb.length() == 0 ? "" : "+").append(r);
        }
        return sb.toString();
    }

    /** {@code size} rows split over {@code parts} as evenly as possible, the larger parts first. */
    private static int[] split(int size, int parts) {
        int[] rows = new int[parts];
        for (int d = 0; d < parts; d++) {
            rows[d] = size / parts + (d < size % parts ? 1 : 0);
        }
        return rows;
    }

    private static String bar(int done, int total) {
        int filled = (int) ((long) done * BAR / total);
        return "[" + "#".repeat(filled) + ".".repeat(BAR - filled) + "]";
    }

    private static int digits(int n) {
        return Integer.toString(n).length();
    }

    /**
     * Parses a comma-separated list of device contexts.
     *
     * @throws IllegalArgumentException for an empty list, a malformed context or one listed twice
     */
    static List<Context> parseDevices(String list) {
        List<Context> devices = new ArrayList<>();
        for (String part : list.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Context c;
            try {
                c = Context.parse(part);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--devices: " + e.getMessage(), e);
            }
            if (devices.contains(c)) {
                throw new IllegalArgumentException("--devices lists " + c + " twice; list each device once");
            }
            devices.add(c);
        }
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("--devices is empty: list one or more devices, e.g. cpu:0,cpu:1");
        }
        return devices;
    }

    /** The first CPU context no replica uses: host ops then never queue behind a replica's work. */
    static Context hostContext(List<Context> devices) {
        int id = 0;
        while (devices.contains(Context.cpu(id))) {
            id++;
        }
        return Context.cpu(id);
    }

    private static Path htmlBeside(Path trace) {
        String name = trace.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return trace.resolveSibling(base + ".html");
    }

    private static String join(List<Context> devices) {
        StringBuilder sb = new StringBuilder();
        for (Context c : devices) {
            sb.append(sb.length() == 0 ? "" : ",").append(c);
        }
        return sb.toString();
    }
}
