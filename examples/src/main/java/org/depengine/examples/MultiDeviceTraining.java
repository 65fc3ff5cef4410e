package org.depengine.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.profiler.Profiler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The two-layer network of {@code docs/design.md}, trained data-parallel on several devices — and, with
 * {@code --kvstore dist_sync --workers N}, in several processes, or with {@code --members}, one process per
 * machine — written as a plain serial program of pushes. Per batch, each device gets its slice of the
 * samples and runs forward and backward; each layer's gradient is pushed to the KVStore as soon as it
 * exists and the new weights pulled back (MXNet's way: push and pull are engine ops, so nothing here
 * waits). The store sums the devices' gradients (in device order, then in rank order across processes)
 * and the SGD step is taken on the host ({@code local}), on every worker on the round's sum
 * ({@code dist_sync}'s default, {@code updateOn=worker}: the store only sums, as PyTorch DDP), or on the
 * Hazelcast member owning the key ({@code dist_async}, or {@code -Ddepengine.kvstore.updateOn=server}).
 *
 * <p>Usage: {@code MultiDeviceTraining [--engine naive|pooled|perdevice] [--devices cpu:0,cpu:1]
 * [--kvstore local|dist_sync|dist_async] [--workers N] [--members HOST:PORT,... --rank R --job ID
 * [--bind ADDRESS]] [--data file.csv] [--epochs N] [--batch N] [--hidden N] [--lr X] [--seed N]
 * [--checkpoint-every N [--checkpoint FILE]] [--resume FILE] [--no-capture] [--profile] [--trace file.json|off]
 * [--metrics] [--metrics-port PORT] [--elastic [--min-workers N] [--max-workers N] [--kill RANK@EPOCH]...
 * [--join-at EPOCH] | --elastic --join HOST:PORT] [--help]}.
 *
 * <p>{@code --metrics} prints the engine's and the store's Micrometer meters at the end
 * ({@code depengine-micrometer}: the executor meters per worker group, {@code depengine.ops.*},
 * {@code depengine.kvstore.*}); {@code --metrics-port PORT} also serves them in Prometheus's text format at
 * {@code http://127.0.0.1:PORT/metrics} while it runs ({@link TrainingMetrics}).
 *
 * <p>Each batch's whole step, its device and metrics ops and the store's pushes and pulls, is recorded
 * once ({@link Engine#capture()}) per batch size and source of samples, and the graph replayed for every
 * batch; the ops read their batch's position from a {@link BatchCursor}, and the store's replayed ops
 * decide their rounds when they run, as the calls would. {@code --no-capture} makes every call one by
 * one; the losses are the same.
 *
 * <p>Checkpoints: with {@code --checkpoint-every N}, after every N-th epoch rank 0 writes the store's
 * checkpoint ({@link KVStore#checkpoint}: the weights and the epochs done); {@code --resume FILE} (given
 * to every worker; the loopback form passes it on) continues from one, and prints the same per-epoch
 * losses as a run that never stopped.
 *
 * <p>Elastic jobs ({@link ElasticOptions}: {@code --elastic [--min-workers N] [--max-workers N]}, loopback
 * demonstration {@code --kill RANK@EPOCH}, {@code --join-at EPOCH}; a joiner's own form {@code --join HOST:PORT})
 * go on when a worker dies. Each epoch's batches are split over the workers of the view agreed at its start
 * ({@link WorkerShares}): not {@link KVStore#rank()} and {@link KVStore#numWorkers()} read at some instant,
 * which each worker sees move at its own, but the view that summed a small round every worker pushes at the
 * epoch's start. A change takes effect at the next epoch; the epoch it happens in keeps its split, and its
 * rounds summed without the lost worker lack that worker's share. Every change is printed with the first round
 * of each key summed over its view, and each new split with the epoch it starts at, so the run can be
 * replayed from its output: {@code MultiDeviceTrainingTest} does so in one process and gets the same losses,
 * bit for bit. The epoch lines are printed by each epoch's rank 0 (the loopback form's rank 0 is this process,
 * which is never killed).
 */
@Command(name = "MultiDeviceTraining", sortOptions = false,
        description = {"Trains a two-layer network (fc1, ReLU, fc2, softmax cross-entropy) data-parallel on the listed",
                "devices: each device runs its slice of every batch, pushes each layer's gradient to a KVStore as soon",
                "as it has one and pulls the new weights; the store sums the gradients and takes the SGD step, and",
                "the engine overlaps it all. With --kvstore dist_sync or dist_async and --workers N, N worker JVMs",
                "on loopback share the batch (this one is rank 0 and prints; the others log to files) through a",
                "Hazelcast cluster they form. On N machines, run it once per machine with the same --members",
                "(every worker's host:port, in rank order) and --job, and each machine's own --rank. Data: a seeded",
                "3-class spiral (600 samples), or --data with lines 'feature,...,label'. With --elastic (dist_sync) the job",
                "goes on when a worker dies: each epoch's batches are split over the workers agreed at its start, and",
                "each membership change is printed; --kill RANK@EPOCH shows it on loopback."})
public final class MultiDeviceTraining implements Callable<Integer> {
    /** kvstore-hazelcast's setting of the user's updater classes. */
    private static final String UPDATER_CLASSES = "updaterClasses";
    /**
     * The profiler's records per thread: with {@code --profile} enough for every op of a long run; else
     * enough for a default run's whole trace (a replayed op's {@code replay} argument takes records too).
     */
    private static final int PROFILE_RING = 1 << 20;
    private static final int TRACE_RING = 1 << 18;

    @Mixin
    private CommonOptions common = new CommonOptions();

    @Option(names = "--devices", paramLabel = "LIST",
            description = "this worker's devices, e.g. opencl:0,cpu:0 or cuda:0,cuda:1 "
                    + "(default cpu:0,cpu:1 with --kvstore local, cpu:0 per worker otherwise)")
    private String devicesOption;

    @Option(names = "--kvstore", paramLabel = "TYPE", description = "local (default), dist_sync or dist_async")
    private String kvstoreType = "local";

    @Mixin
    private ClusterOptions cluster = new ClusterOptions();

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

    @Option(names = "--checkpoint-every", paramLabel = "N",
            description = "after every N-th epoch, rank 0 writes a checkpoint of the weights and the epochs done "
                    + "(default 0: none)")
    private int checkpointEvery;

    @Option(names = "--checkpoint", paramLabel = "FILE",
            description = "where --checkpoint-every writes (each replaces the last; default "
                    + "MultiDeviceTraining.ckpt in the temporary directory)")
    private Path checkpointFile;

    @Option(names = "--resume", paramLabel = "FILE",
            description = "continue from a checkpoint written by --checkpoint-every, at the epoch after it "
                    + "(same data, batch, hidden, seed and --workers as the run that wrote it)")
    private Path resumeFile;

    @Option(names = "--no-capture",
            description = "push every batch's ops and make its store calls one by one instead of recording the "
                    + "step once (Engine.capture) and replaying the graph for each batch")
    private boolean noCapture;

    @Option(names = "--profile",
            description = "print the engine's cost per training batch (after the first epoch) from the profiler's "
                    + "times: wall, the ops' own run time, the difference, the pushing thread's time in pushes, "
                    + "and the queue wait per op (with --trace off, which runs without the profiler: the wall and "
                    + "pushing-thread figures only)")
    private boolean profile;

    @Option(names = "--trace", paramLabel = "FILE.json|off",
            description = "default MultiDeviceTraining.trace.json in the temporary directory (an .html beside it); "
                    + "off runs without the profiler (rank 0 only)")
    private String traceOption;

    @Option(names = "--metrics",
            description = "print the engine's and the store's Micrometer meters at the end (executor meters per worker "
                    + "group, depengine.ops.*, depengine.kvstore.*; rank 0)")
    private boolean metrics;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "with --metrics, also serve them in Prometheus's text format at http://127.0.0.1:PORT/metrics "
                    + "while training (loopback only; 0 picks a free port)")
    private Integer metricsPort;

    @Mixin
    private ElasticOptions elastic = new ElasticOptions();

    private MultiDeviceTraining() {
    }

    /** Entry point: see {@link Cli} for the exit status. */
    public static void main(String[] args) {
        WorkerProcesses.quietHazelcast();
        System.exit(Cli.run(new MultiDeviceTraining(), args));
    }

    @Override
    public Integer call() throws Exception {
        boolean local = kvstoreType.equals("local");
        if (!local && !kvstoreType.equals("dist_sync") && !kvstoreType.equals("dist_async")) {
            throw new IllegalArgumentException("--kvstore " + kvstoreType + ": use local, dist_sync or dist_async");
        }
        elastic.checkAlone(kvstoreType);
        int workers = cluster.check(kvstoreType, elastic.join);
        Cli.inRange("--epochs", epochs, 1, 1_000_000);
        Cli.inRange("--batch", batchSize, 1, 1 << 20);
        Cli.inRange("--hidden", hidden, 1, 1 << 14);
        float lr = (float) Cli.inRange("--lr", lrOption, 0, 1000);
        Cli.inRange("--seed", seed, 0, Integer.MAX_VALUE);
        Cli.inRange("--checkpoint-every", checkpointEvery, 0, 1_000_000);
        if (metricsPort != null) {
            Cli.inRange("--metrics-port", metricsPort, 0, 65535);
            if (!metrics) {
                throw new IllegalArgumentException("--metrics-port " + metricsPort + " needs --metrics");
            }
        }
        elastic.check(workers, epochs, cluster.startsWorkers(workers), checkpointEvery > 0 || resumeFile != null);
        if (elastic.elastic) {
            WorkerProcesses.quietExpectedLosses();
        }
        if (resumeFile != null && cluster.rank() == 0 && !Files.isReadable(resumeFile)) {
            throw new IllegalArgumentException("--resume " + resumeFile + ": no such readable file; give a checkpoint "
                    + "written with --checkpoint-every");
        }
        List<Context> devices = parseDevices(devicesOption != null ? devicesOption : local ? "cpu:0,cpu:1" : "cpu:0");
        TrainingData data = dataFile == null ? TrainingData.spiral(200, 3, 0.15, seed) : TrainingData.csv(dataFile);
        int batch = Math.min(batchSize, data.rows);
        int totalDevices = elastic.maxWorkers(workers) * devices.size(); // an elastic job's joiners too
        if (batch < totalDevices) {
            throw new IllegalArgumentException("--batch " + batch + " is smaller than the " + totalDevices
                    + " devices: each device needs at least one sample per batch");
        }
        int last = data.rows % batch;
        if (workers > 1 && last != 0 && last < totalDevices) {
            throw new IllegalArgumentException("the last batch of each epoch has " + last + " samples, fewer than the "
                    + totalDevices + " devices of the " + elastic.maxWorkers(workers) + " workers: choose a --batch that "
                    + "divides the " + data.rows + " samples or leaves at least " + totalDevices);
        }
        if (cluster.startsWorkers(workers)) {
            return launchAndTrain(workers, devices, data, batch, lr);
        }
        return train(workers, devices, data, batch, lr, e -> { });
    }

    /**
     * Rank 0 of a multi-process run: starts the other workers on loopback, trains with them (killing or adding
     * workers at the epochs {@link ElasticOptions} gives), checks how they ended.
     */
    private int launchAndTrain(int workers, List<Context> devices, TrainingData data, int batch, float lr) throws Exception {
        Path joinerLog = Path.of(System.getProperty("java.io.tmpdir"), "MultiDeviceTraining.joiner.log");
        return WorkerProcesses.runOnLoopback(MultiDeviceTraining.class, cluster, workers, kvstoreType, this::workerArgs,
                others -> () -> train(workers, devices, data, batch, lr, !elastic.acts() ? e -> { }
                        : e -> elastic.atEpochStart(e, others, this::joinerArgs, joinerLog)));
    }

    /** The command line of worker {@code r}: the per-machine form, with this run's training options. */
    private List<String> workerArgs(int r) {
        List<String> a = trainingArgs();
        a.addAll(elastic.workerArgs());
        a.addAll(cluster.workerArgs(r));
        return a;
    }

    /** The command line of a worker that joins this loopback job: on a free port of its own. */
    private List<String> joinerArgs() {
        List<String> a = trainingArgs();
        a.add("--elastic");
        try {
            a.addAll(cluster.joinerArgs("127.0.0.1:" + WorkerProcesses.freePorts(1).get(0)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("no free loopback port for the joiner", e);
        }
        return a;
    }

    /** This run's training options, as every worker it starts gets them. */
    private List<String> trainingArgs() {
        List<String> a = new ArrayList<>(List.of("--engine", common.engine, "--kvstore", kvstoreType,
                "--epochs", Integer.toString(epochs),
                "--batch", Integer.toString(batchSize), "--hidden", Integer.toString(hidden),
                "--lr", Double.toString(lrOption), "--seed", Integer.toString(seed), "--trace", "off",
                "--checkpoint-every", Integer.toString(checkpointEvery), "--checkpoint", checkpointPath().toString()));
        if (resumeFile != null) {
            a.addAll(List.of("--resume", resumeFile.toString()));
        }
        if (noCapture) {
            a.add("--no-capture");
        }
        if (devicesOption != null) {
            a.addAll(List.of("--devices", devicesOption));
        }
        if (dataFile != null) {
            a.addAll(List.of("--data", dataFile.toString()));
        }
        return a;
    }

    /**
     * The store's settings, with this example's updater registered (a key's owner accepts only registered
     * ones) and the checkpoint to resume from.
     */
    private KVStoreSettings storeSettings() {
        KVStoreSettings given = elastic.settings(cluster.storeSettings());
        KVStoreSettings.Builder b = given.toBuilder().set(UPDATER_CLASSES, given.get(UPDATER_CLASSES)
                .map(c -> c + ",").orElse("") + TrainingUpdater.class.getName());
        if (resumeFile != null) {
            b.set(KVStoreSettings.RESUME, resumeFile.toString());
        }
        return b.build();
    }

    /** Where the store sums and takes the SGD step, for the first line. */
    private static String whereSgd(String type, KVStoreSettings s) {
        String on = s.get("updateOn").orElse(type.equals("dist_async") ? "server" : "worker");
        return type.equals("local") ? "gradient sums and SGD on the host"
                : on.equalsIgnoreCase("server") ? "gradient sums and SGD where each key lives"
                : "gradient sums over the workers, SGD on every worker";
    }

    private Path checkpointPath() {
        return checkpointFile != null ? checkpointFile
                : Path.of(System.getProperty("java.io.tmpdir"), "MultiDeviceTraining.ckpt");
    }

    private static void awaitArrival(WorkerShares shares) {
        try {
            shares.awaitArrival(java.time.Duration.ofMinutes(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the joiner", e);
        }
    }

    /** Trains as one worker; {@code atEpochStart} is called with each epoch's number before its batches are pushed. */
    private int train(int workers, List<Context> devices, TrainingData data, int batch, float lr, IntConsumer atEpochStart)
            throws Exception {
        String traceText = traceOption != null ? traceOption
                : Path.of(System.getProperty("java.io.tmpdir"), "MultiDeviceTraining.trace.json").toString();
        Path trace = traceText.equals("off") || cluster.rank() != 0 ? null : Path.of(traceText);
        Context host = hostContext(devices);
        boolean print = cluster.rank() == 0;
        try (Engine engine = Engine.create(common.engine);
             KVStore kv = KVStore.open(engine, kvstoreType, storeSettings());
             TrainingMetrics meters = metrics && print ? new TrainingMetrics(engine, kv, metricsPort) : null) {
            // An elastic job follows its membership from the store's start: a change before the first init too.
            WorkerShares shares = elastic.elastic ? new WorkerShares(engine, kv, hostContext(devices), cluster.joining())
                    : null;
            Trainer run = new Trainer(engine, kv, devices, host, data, batch, hidden, lr, seed, !noCapture, shares);
            if (print) {
                System.out.printf("engine %s; devices %s; host ops (shuffles, metrics) on %s; kvstore %s (%s; %s)%n",
                        engine.name(), join(devices), host, kv.type(), workers == 1 ? "1 worker" : workers + " workers",
                        whereSgd(kv.type(), storeSettings()));
                System.out.printf("data: %s; batch %d (%s per device%s); hidden %d; lr %s; %d epochs; %s%n",
                        data.description, batch, run.rowsPerDeviceText(), workers > 1 ? ", over " + workers + " workers"
                        : "", hidden, lr, epochs, noCapture ? "ops pushed one by one (--no-capture)"
                        : "each batch's step (device, metrics and store ops) replayed from a captured graph");
                if (meters != null && meters.url() != null) {
                    System.out.println("metrics: Prometheus text format at " + meters.url() + " while training");
                }
                if (elastic.describe() != null) {
                    System.out.println(elastic.describe());
                }
                if (kv.type().equals("dist_async")) {
                    System.out.println("dist_async: the epoch lines count rank 0's samples only (the workers do not wait "
                            + "for each other)");
                }
            }
            Profiler.Builder pb = Profiler.Builder.fromSystemProperties().mode(Profiler.Mode.ALL);
            if (System.getProperty(Profiler.RING_CAPACITY_PROPERTY) == null) { // a capacity given on the command line wins
                pb.ringCapacity(profile ? PROFILE_RING : TRACE_RING);
            }
            Profiler profiler = trace == null ? null : pb.build().start(engine);
            if (profile && profiler != null) {
                run.afterFirstEpoch(profiler::clear); // the per-batch figures leave out the warm-up, as the epoch times do
            }
            long t0 = System.nanoTime();
            IntConsumer onEpoch = shares == null ? atEpochStart : e -> {
                atEpochStart.accept(e);
                if (elastic.joinsAt(e)) {
                    awaitArrival(shares); // the joiner trains from the epoch after: the same run whatever its start takes
                }
            };
            int firstEpoch = run.pushTraining(epochs, seed, print,
                    new TrainingCheckpoints(engine, kv, checkpointEvery, checkpointPath(), host), onEpoch);
            engine.waitForAll();
            String perStep = profile ? StepCosts.line(profiler == null ? null : profiler.stats(), run) : null;
            // The job's two last barriers; a joiner admitted at the first of them (its period says) calls the second only.
            int barriers = elastic.elastic ? Math.min(2, epochs + 2 - kv.period()) : 2;
            if (barriers == 2) {
                kv.barrier(); // every worker's pushes have landed: the weights are final
            }
            // An elastic job's rank 0 may have died: the last view's rank 0 reports.
            print = elastic.elastic ? kv.rank() == 0 : print;
            double accuracy = print ? run.evaluate() : Double.NaN;
            engine.waitForAll();
            long t1 = System.nanoTime();
            if (barriers >= 1) {
                kv.barrier(); // the others stay until rank 0 has read the weights
            }
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
            int n = ends.size();
            double first = (ends.get(0) - t0) / 1e6;
            double rest = n > 1 ? (ends.get(n - 1) - ends.get(0)) / 1e6 / (n - 1) : first;
            System.out.printf(Locale.ROOT, "time per epoch: %.1f ms (mean of epochs %d..%d; epoch %d with warm-up: %.1f ms); "
                    + "total %.2f s%n", rest, firstEpoch + 1, Math.max(firstEpoch + 1, epochs), firstEpoch, first,
                    (t1 - t0) / 1e9);
            if (perStep != null) {
                System.out.println(perStep);
            }
            if (profiler != null) {
                System.out.printf("trace: %s (%d ops; open in https://ui.perfetto.dev or chrome://tracing)%n",
                        trace.toAbsolutePath(), profiler.stats().opCount());
                System.out.printf("timeline: %s (open in a browser)%n", htmlBeside(trace).toAbsolutePath());
            }
            if (meters != null) {
                // The barrier's end-of-period ops too: the summary is of an idle engine (but for each worker
                // thread's last op, which it may count just after waitForAll returns: EngineMetrics.Group#completed).
                engine.waitForAll();
                System.out.print(meters.summary());
            }
            return 0;
        }
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
