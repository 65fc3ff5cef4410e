package org.depengine.examples;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.profiler.Profiler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The two-layer network of {@code docs/design.md}, trained data-parallel on several devices — and, with
 * {@code --kvstore dist_sync --workers N}, in several processes — written as a plain serial program
 * of pushes. Per batch, each device gets its slice of the samples and runs forward and backward; each
 * layer's gradient is pushed to the KVStore as soon as it exists and the new weights pulled back
 * (MXNet's way: push and pull are engine ops, so nothing here waits). The store sums the devices'
 * gradients (in device order, then in rank order across processes) and takes the SGD step where the
 * key lives: on the host ({@code local}) or on the Hazelcast member owning the key ({@code dist_*}).
 *
 * <p>Usage: {@code MultiDeviceTraining [--engine naive|pooled|perdevice] [--devices cpu:0,cpu:1]
 * [--kvstore local|dist_sync|dist_async] [--workers N] [--data file.csv] [--epochs N] [--batch N]
 * [--hidden N] [--lr X] [--seed N] [--trace file.json|off] [--help]}.
 */
@Command(name = "MultiDeviceTraining", sortOptions = false,
        description = {"Trains a two-layer network (fc1, ReLU, fc2, softmax cross-entropy) data-parallel on the listed",
                "devices: each device runs its slice of every batch, pushes each layer's gradient to a KVStore as soon",
                "as it has one and pulls the new weights; the store sums the gradients and takes the SGD step, and",
                "the engine overlaps it all. With --kvstore dist_sync or dist_async and --workers N, N worker JVMs",
                "on loopback share the batch (this one is rank 0 and prints; the others log to files) through a",
                "Hazelcast cluster they form. Data: a seeded 3-class spiral (600 samples), or --data with lines",
                "'feature,...,label'."})
public final class MultiDeviceTraining implements Callable<Integer> {
    private static final int BAR = 30;
    private static final String METRICS = TrainingUpdater.METRICS;

    @Mixin
    private CommonOptions common = new CommonOptions();

    @Option(names = "--devices", paramLabel = "LIST",
            description = "this worker's devices, e.g. opencl:0,cpu:0 or cuda:0,cuda:1 "
                    + "(default cpu:0,cpu:1 with --kvstore local, cpu:0 per worker otherwise)")
    private String devicesOption;

    @Option(names = "--kvstore", paramLabel = "TYPE", description = "local (default), dist_sync or dist_async")
    private String kvstoreType = "local";

    @Option(names = "--workers", paramLabel = "N",
            description = "worker processes for dist_sync/dist_async (default 2; 1 for local)")
    private Integer workersOption;

    @Option(names = "--data", paramLabel = "FILE.csv", description = "training data (default: the seeded spiral)")
    private Path dataFile;

    @Option(names = "--epochs", paramLabel = "N", description = "default 30")
    private int epochs = 30;

    @Option(names = "--batch", paramLabel = "N", description = "the global batch, over every device of every worker (default 60)")
    private int batchSize = 60;

    @Option(names = "--hidden", paramLabel = "N", description = "default 64")
    private int hidden = 64;

    @Option(names = "--lr", paramLabel = "X", description = "default 0.8")
    private double lrOption = 0.8;

    @Option(names = "--seed", paramLabel = "N", description = "default 1")
    private int seed = 1;

    @Option(names = "--trace", paramLabel = "FILE.json|off",
            description = "default MultiDeviceTraining.trace.json in the temporary directory (an .html beside it); "
                    + "off runs without the profiler (rank 0 only)")
    private String traceOption;

    // Set by rank 0 on the command lines of the workers it starts.
    @Option(names = "--rank", hidden = true)
    private int rank;

    @Option(names = "--members", hidden = true)
    private String members;

    @Option(names = "--cluster", hidden = true)
    private String cluster;

    private MultiDeviceTraining() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        // Hazelcast (the dist_* stores) logs through SLF4J; its start-up note about JDK internals is noise here.
        System.setProperty("hazelcast.logging.type", "slf4j");
        if (System.getProperty("org.slf4j.simpleLogger.log.com.hazelcast.instance.impl.HazelcastInstanceFactory") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.hazelcast.instance.impl.HazelcastInstanceFactory", "error");
        }
        System.exit(Cli.run(new MultiDeviceTraining(), args));
    }

    @Override
    public Integer call() throws Exception {
        boolean local = kvstoreType.equals("local");
        if (!local && !kvstoreType.equals("dist_sync") && !kvstoreType.equals("dist_async")) {
            throw new IllegalArgumentException("--kvstore " + kvstoreType + ": use local, dist_sync or dist_async");
        }
        int workers = workersOption != null ? workersOption : local ? 1 : 2;
        if (local && workers != 1) {
            throw new IllegalArgumentException("--workers " + workers + " needs --kvstore dist_sync or dist_async "
                    + "(a local store has one worker)");
        }
        Cli.inRange("--workers", workers, 1, 64);
        Cli.inRange("--epochs", epochs, 1, 1_000_000);
        Cli.inRange("--batch", batchSize, 1, 1 << 20);
        Cli.inRange("--hidden", hidden, 1, 1 << 14);
        float lr = (float) Cli.inRange("--lr", lrOption, 0, 1000);
        Cli.inRange("--seed", seed, 0, Integer.MAX_VALUE);
        List<Context> devices = parseDevices(devicesOption != null ? devicesOption : local ? "cpu:0,cpu:1" : "cpu:0");
        TrainingData data = dataFile == null ? TrainingData.spiral(200, 3, 0.15, seed) : TrainingData.csv(dataFile);
        int batch = Math.min(batchSize, data.rows);
        int totalDevices = workers * devices.size();
        if (batch < totalDevices) {
            throw new IllegalArgumentException("--batch " + batch + " is smaller than the " + totalDevices
                    + " devices: each device needs at least one sample per batch");
        }
        int last = data.rows % batch;
        if (workers > 1 && last != 0 && last < totalDevices) {
            throw new IllegalArgumentException("the last batch of each epoch has " + last + " samples, fewer than the "
                    + totalDevices + " devices of the " + workers + " workers: choose a --batch that divides the "
                    + data.rows + " samples or leaves at least " + totalDevices);
        }
        if (rank == 0 && workers > 1 && members == null) {
            return launchAndTrain(workers, devices, data, batch, lr);
        }
        return train(workers, devices, data, batch, lr);
    }

    /** Rank 0 of a multi-process run: starts the other workers on loopback, trains with them, checks how they ended. */
    private int launchAndTrain(int workers, List<Context> devices, TrainingData data, int batch, float lr) throws Exception {
        List<Integer> ports = WorkerProcesses.freePorts(workers);
        StringBuilder list = new StringBuilder();
        for (int p : ports) {
            list.append(list.length() == 0 ? "" : ",").append("127.0.0.1:").append(p);
        }
        members = list.toString();
        cluster = "depengine-mdt-" + UUID.randomUUID();
        Path logDir = Path.of(System.getProperty("java.io.tmpdir"));
        try (WorkerProcesses others = new WorkerProcesses()) {
            for (int r = 1; r < workers; r++) {
                others.start(r, workerArgs(r, workers), logDir.resolve("MultiDeviceTraining.rank" + r + ".log"));
            }
            System.out.printf("kvstore %s: %d workers on loopback (%s), cluster %s; ranks 1..%d log to %s%n", kvstoreType,
                    workers, members, cluster, workers - 1, others.logs());
            int status = train(workers, devices, data, batch, lr);
            String failure = others.awaitAll(60);
            if (failure != null) {
                System.err.println("MultiDeviceTraining: " + failure);
                return 1;
            }
            return status;
        }
    }

    private List<String> workerArgs(int r, int workers) {
        List<String> a = new ArrayList<>(List.of("--engine", common.engine, "--kvstore", kvstoreType,
                "--workers", Integer.toString(workers), "--epochs", Integer.toString(epochs),
                "--batch", Integer.toString(batchSize), "--hidden", Integer.toString(hidden),
                "--lr", Double.toString(lrOption), "--seed", Integer.toString(seed), "--trace", "off",
                "--rank", Integer.toString(r), "--members", members, "--cluster", cluster));
        if (devicesOption != null) {
            a.addAll(List.of("--devices", devicesOption));
        }
        if (dataFile != null) {
            a.addAll(List.of("--data", dataFile.toString()));
        }
        return a;
    }

    private KVStoreSettings storeSettings(int workers) {
        if (workers == 1 && members == null) {
            return KVStoreSettings.fromSystemProperties();
        }
        String[] addresses = members.split(",");
        String own = addresses[rank];
        return KVStoreSettings.fromSystemProperties().toBuilder()
                .members(members).rank(rank).numWorkers(workers).clusterName(cluster)
                .port(Integer.parseInt(own.substring(own.lastIndexOf(':') + 1)))
                .set("portCount", "1")
                // A pull waits for the slowest worker's push: generous on a shared machine.
                .timeoutMs(Long.getLong("depengine.kvstore.timeoutMs", 30_000))
                .build();
    }

    private int train(int workers, List<Context> devices, TrainingData data, int batch, float lr) throws Exception {
        String traceText = traceOption != null ? traceOption
                : Path.of(System.getProperty("java.io.tmpdir"), "MultiDeviceTraining.trace.json").toString();
        Path trace = traceText.equals("off") || rank != 0 ? null : Path.of(traceText);
        Context host = hostContext(devices);
        try (Engine engine = Engine.create(common.engine);
             KVStore kv = KVStore.open(engine, kvstoreType, storeSettings(workers))) {
            Trainer run = new Trainer(engine, kv, devices, host, data, batch, hidden, lr, seed);
            boolean print = rank == 0;
            if (print) {
                System.out.printf("engine %s; devices %s; host ops (shuffles, metrics) on %s; kvstore %s (%s; gradient sums "
                        + "and SGD where each key lives)%n", engine.name(), join(devices), host, kv.type(),
                        workers == 1 ? "1 worker" : workers + " workers");
                System.out.printf("data: %s; batch %d (%s per device%s); hidden %d; lr %s; %d epochs%n", data.description,
                        batch, run.rowsPerDeviceText(), workers > 1 ? ", over " + workers + " workers" : "", hidden, lr,
                        epochs);
                if (kv.type().equals("dist_async")) {
                    System.out.println("dist_async: the epoch lines count rank 0's samples only (the workers do not wait "
                            + "for each other)");
                }
            }
            Profiler profiler = trace == null ? null
                    : Profiler.Builder.fromSystemProperties().mode(Profiler.Mode.ALL).build().start(engine);
            long t0 = System.nanoTime();
            run.pushTraining(epochs, seed, print);
            engine.waitForAll();
            kv.barrier(); // every worker's pushes have landed: the weights are final
            double accuracy = print ? run.evaluate() : Double.NaN;
            engine.waitForAll();
            long t1 = System.nanoTime();
            kv.barrier(); // the others stay until rank 0 has read the weights
            if (profiler != null) {
                profiler.stop();
                profiler.dump(trace);
                profiler.writeHtml(htmlBeside(trace));
            }
            if (!print) {
                return 0;
            }
            System.out.printf(Locale.ROOT, "final accuracy on all %d samples: %.1f%%%n", data.rows, 100 * accuracy);
            List<Long> ends = run.epochEnds;
            double first = (ends.get(0) - t0) / 1e6;
            double rest = epochs > 1 ? (ends.get(epochs - 1) - ends.get(0)) / 1e6 / (epochs - 1) : first;
            System.out.printf(Locale.ROOT, "time per epoch: %.1f ms (mean of epochs 2..%d; epoch 1 with warm-up: %.1f ms); "
                    + "total %.2f s%n", rest, Math.max(2, epochs), first, (t1 - t0) / 1e9);
            if (profiler != null) {
                System.out.printf("trace: %s (%d ops; open in https://ui.perfetto.dev or chrome://tracing)%n",
                        trace.toAbsolutePath(), profiler.stats().opCount());
                System.out.printf("timeline: %s (open in a browser)%n", htmlBeside(trace).toAbsolutePath());
            }
            return 0;
        }
    }

    /** One worker's training: its replicas, the store, and the ops it pushes. */
    private final class Trainer {
        private final Engine engine;
        private final KVStore kv;
        private final List<Replica> replicas = new ArrayList<>();
        private final HostModel model;
        private final TrainingData data;
        private final int batch;
        private final int totalDevices;
        private final int firstDevice;
        private final boolean exchangeMetrics;
        private final EpochMetrics metrics;
        private final VarHandle progressVar;
        /** Written only by ops that write {@link #progressVar}; read after the waits. */
        final List<Long> epochEnds = new ArrayList<>();
        private double lastAccuracy;

        Trainer(Engine engine, KVStore kv, List<Context> devices, Context host, TrainingData data, int batch, int hidden,
                float lr, long seed) {
            this.engine = engine;
            this.kv = kv;
            this.data = data;
            this.batch = batch;
            this.totalDevices = kv.numWorkers() * devices.size();
            this.firstDevice = kv.rank() * devices.size();
            // dist_async: a pull does not wait for the other workers, so the metrics stay per worker.
            this.exchangeMetrics = !kv.type().equals("dist_async");
            int maxRows = (batch + totalDevices - 1) / totalDevices;
            for (Context c : devices) {
                replicas.add(new Replica(engine, c, Math.max(maxRows, (batch + devices.size() - 1) / devices.size()),
                        data.features, hidden, data.classes));
            }
            model = new HostModel(engine, data.features, hidden, data.classes, seed + 1);
            metrics = new EpochMetrics(engine, host, data.rows);
            progressVar = engine.newVariable("progress");
            kv.setUpdater(new TrainingUpdater(lr));
        }

        /** Pushes the initial weights (rank 0's reach the store), then every epoch's batches and report. */
        void pushTraining(int epochs, long seed, boolean print) {
            Replica first = replicas.get(0);
            for (Replica r : replicas) {
                r.pushWeightsIn(engine, r.fc1, model.fc1);
                r.pushWeightsIn(engine, r.fc2, model.fc2);
            }
            for (Replica.Dense layer : List.of(first.fc1, first.fc2)) {
                kv.init(layer.weightKey(), layer.weights);
                kv.init(layer.biasKey(), layer.bias);
            }
            metrics.pushClear(engine.op("clear epoch metrics"));
            kv.init(METRICS, metrics.local);
            for (int layer = 1; layer <= 2; layer++) {
                pullLayer(layer);
            }
            // Two shuffled copies of the data, alternating by epoch, so that the next epoch's shuffle
            // overlaps this epoch's copies to the devices. Every worker draws the same shuffle.
            HostData[] epochData = {
                new HostData(engine, "epoch data A", data.rows, data.features),
                new HostData(engine, "epoch data B", data.rows, data.features)
            };
            int batches = (data.rows + batch - 1) / batch;
            for (int e = 0; e < epochs; e++) {
                HostData src = epochData[e % 2];
                src.pushShuffle(engine.op("shuffle").arg("epoch", e + 1), metricsHost(), data, seed * 1_000_003L + e);
                for (int b = 0; b < batches; b++) {
                    int start = b * batch;
                    pushBatch(src, start, Math.min(batch, data.rows - start), true, totalDevices, firstDevice);
                }
                pushEpochReport(e + 1, epochs, print);
            }
        }

        private Context metricsHost() {
            return hostContext(contexts());
        }

        private List<Context> contexts() {
            List<Context> cs = new ArrayList<>();
            for (Replica r : replicas) {
                cs.add(r.ctx);
            }
            return cs;
        }

        /**
         * Rank 0 alone, after training: a forward pass over all the data, unshuffled, on its own devices
         * with the final weights; waits; returns the accuracy.
         */
        double evaluate() {
            for (int layer = 1; layer <= 2; layer++) {
                pullLayer(layer);
            }
            HostData all = new HostData(engine, "all data", data.rows, data.features);
            all.fill(data);
            metrics.pushClear(engine.op("clear evaluation metrics"));
            int batches = (data.rows + batch - 1) / batch;
            for (int b = 0; b < batches; b++) {
                int start = b * batch;
                pushBatch(all, start, Math.min(batch, data.rows - start), false, replicas.size(), 0);
            }
            metrics.pushSummary(engine.op("evaluation"), metrics.local, progressVar, s -> lastAccuracy = s.accuracy());
            engine.waitForVar(progressVar);
            return lastAccuracy;
        }

        /**
         * One batch: this worker's devices {@code firstDevice ..} of {@code devices} get their slices
         * (positions {@code start ..} of the pass); when training, each layer's gradient is pushed as soon
         * as the backward pass has it (fc2 first) and its new weights pulled into every replica.
         */
        private void pushBatch(HostData src, int start, int size, boolean train, int devices, int firstDevice) {
            int[] rows = split(size, devices);
            int pos = start;
            for (int d = 0; d < firstDevice; d++) {
                pos += rows[d];
            }
            List<Replica> active = new ArrayList<>();
            List<Integer> starts = new ArrayList<>();
            List<Integer> counts = new ArrayList<>();
            for (int i = 0; i < replicas.size(); i++) {
                int n = rows[firstDevice + i];
                if (n == 0) {
                    continue;
                }
                Replica r = replicas.get(i);
                r.pushLoad(engine, src, pos, n);
                r.pushForward(engine, n, train, 1f / size); // the gradient of the mean loss over the whole batch
                if (train) {
                    r.pushBackward(engine, n);
                }
                active.add(r);
                starts.add(pos);
                counts.add(n);
                pos += n;
            }
            metrics.pushRecord(engine, src, active, starts, counts, data.classes, train);
            if (train) {
                pushLayer(2, active);
                pushLayer(1, active);
            }
        }

        /** Pushes layer {@code layer}'s gradients of the active replicas and pulls its weights into all. */
        private void pushLayer(int layer, List<Replica> active) {
            List<DeviceArray> w = new ArrayList<>();
            List<DeviceArray> b = new ArrayList<>();
            for (Replica r : active) {
                Replica.Dense d = layer == 1 ? r.fc1 : r.fc2;
                w.add(d.weightGrad);
                b.add(d.biasGrad);
            }
            Replica.Dense first = layer == 1 ? replicas.get(0).fc1 : replicas.get(0).fc2;
            kv.push(first.weightKey(), w, -layer); // MXNet's priority: the first layer's weights come back first
            kv.push(first.biasKey(), b, -layer);
            pullLayer(layer);
        }

        private void pullLayer(int layer) {
            List<DeviceArray> w = new ArrayList<>();
            List<DeviceArray> b = new ArrayList<>();
            for (Replica r : replicas) {
                Replica.Dense d = layer == 1 ? r.fc1 : r.fc2;
                w.add(d.weights);
                b.add(d.bias);
            }
            Replica.Dense first = layer == 1 ? replicas.get(0).fc1 : replicas.get(0).fc2;
            kv.pull(first.weightKey(), w, -layer);
            kv.pull(first.biasKey(), b, -layer);
        }

        /** Sums the epoch's metrics (over every worker, except with dist_async) and prints the epoch's line on rank 0. */
        private void pushEpochReport(int epoch, int epochs, boolean print) {
            DeviceArray from = metrics.local;
            if (exchangeMetrics) {
                kv.push(METRICS, metrics.local, 0);
                kv.pull(METRICS, metrics.all, 0);
                from = metrics.all;
            }
            String overwrite = print && System.console() != null ? "\r" : "";
            metrics.pushSummary(engine.op("epoch report").arg("epoch", epoch), from, progressVar, s -> {
                long now = System.nanoTime();
                String ms = epochEnds.isEmpty() ? ""
                        : String.format(Locale.ROOT, "  %6.1f ms", (now - epochEnds.get(epochEnds.size() - 1)) / 1e6);
                epochEnds.add(now);
                if (print) {
                    System.out.printf(Locale.ROOT, "%sepoch %" + digits(epochs) + "d/%d %s loss %.5f  acc %5.1f%%%s%n",
                            overwrite, epoch, epochs, bar(1, 1), s.meanLoss(), 100.0 * s.accuracy(), ms);
                }
            });
            metrics.pushClear(engine.op("clear epoch metrics").arg("epoch", epoch));
        }

        String rowsPerDeviceText() {
            int[] rows = split(batch, totalDevices);
            StringBuilder sb = new StringBuilder();
            for (int r : rows) {
                sb.append(sb.length() == 0 ? "" : "+").append(r);
            }
            return sb.toString();
        }
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
