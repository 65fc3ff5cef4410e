package org.depengine.examples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.depengine.api.Capture;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.Graph;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;

/**
 * One worker's training in {@link MultiDeviceTraining}: its replicas, the store, and the ops it pushes.
 *
 * <p>Each batch is split over slots, {@code numWorkers × devices per worker} of them, as evenly as possible
 * (the larger parts first); this worker trains slots {@code rank × devices ..} on its devices, in order. In
 * an elastic job ({@link WorkerShares}) the workers and ranks are those of the view the epoch's split was
 * agreed in, at the top of each epoch: a membership change takes effect at the next epoch, and the epoch
 * the change happens in keeps its split (the rounds summed without a lost worker miss its share).
 */
final class Trainer {
    /** The graphs of a captured run are per source of samples (the epochs alternate two), batch size and split. */
    private record StepKey(HostData src, int size, int slots, int firstSlot) {
    }

    private static final int BAR = 30;
    private static final String METRICS = TrainingUpdater.METRICS;

    private final Engine engine;
    private final KVStore kv;
    private final List<Replica> replicas = new ArrayList<>();
    private final HostModel model;
    private final TrainingData data;
    private final int batch;
    /** The batch's slots ({@code numWorkers × devices}) and this worker's first: fixed, but per epoch when elastic. */
    private int slots;
    private int firstSlot;
    /** The elastic job's agreed split, or null for a job whose workers stay. */
    private final WorkerShares shares;
    private WorkerShares.View split;
    private final boolean exchangeMetrics;
    private final EpochMetrics metrics;
    private final VarHandle progressVar;
    /** Whether each batch's calls (device, metrics and store ops) are replayed from a captured graph (else made one by one). */
    private final boolean capture;
    private final Map<StepKey, Graph> steps = new HashMap<>();
    /** The pushing thread's time in the training batches' pushes and replays, and their number. */
    private long stepPushNanos;
    private long stepsPushed;
    /** Run inside the first epoch report's op, after its time is taken; null for nothing. */
    private volatile Runnable afterFirstEpoch;
    /** Written only by ops that write {@link #progressVar}; read after the waits. */
    final List<Long> epochEnds = new ArrayList<>();
    private double lastAccuracy;

    Trainer(Engine engine, KVStore kv, List<Context> devices, Context host, TrainingData data, int batch, int hidden,
            float lr, long seed, boolean capture, WorkerShares shares) {
        this.engine = engine;
        this.capture = capture;
        this.kv = kv;
        this.data = data;
        this.batch = batch;
        this.shares = shares;
        this.slots = kv.numWorkers() * devices.size();
        this.firstSlot = kv.rank() * devices.size();
        // dist_async: a pull does not wait for the other workers, so the metrics stay per worker.
        this.exchangeMetrics = !kv.type().equals("dist_async");
        for (Context c : devices) { // room for the whole batch: an elastic job's last worker trains it all
            replicas.add(new Replica(engine, c, (batch + devices.size() - 1) / devices.size(), data.features, hidden,
                    data.classes));
        }
        model = new HostModel(engine, data.features, hidden, data.classes, seed + 1);
        metrics = new EpochMetrics(engine, host, data.rows);
        progressVar = engine.newVariable("progress");
        kv.setUpdater(new TrainingUpdater(lr));
    }

    /**
     * Pushes the initial weights (rank 0's reach the store; a resumed store takes its checkpoint's), then
     * every epoch's batches and report from the first epoch not done, checkpointing as {@code checkpoints}
     * says. An elastic job agrees each epoch's split first ({@link WorkerShares#agree}: a wait for one small
     * round), and ends each epoch with a barrier, so that its periods are its epochs: a joiner, admitted at a
     * barrier, starts at the epoch its store's {@link KVStore#period()} says. {@code atEpochStart} is called
     * with each epoch's number (from 1) before its batches are pushed, once its split is agreed.
     *
     * @return the first epoch trained (from 1)
     */
    int pushTraining(int epochs, long seed, boolean print, TrainingCheckpoints checkpoints, IntConsumer atEpochStart) {
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
        if (shares != null) {
            shares.init();
        }
        int done = checkpoints.start();
        if (shares != null) {
            done = kv.period(); // one barrier per epoch: a joiner's first period is the epoch it starts at
            if (done >= epochs) {
                return done + 1; // a joiner admitted after the last epoch: nothing to train
            }
        } else if (done >= epochs) {
            throw new IllegalArgumentException("the checkpoint resumed from has " + done + " epochs done; --epochs "
                    + epochs + " leaves none to train: give more");
        }
        // Two shuffled copies of the data, alternating by epoch, so that the next epoch's shuffle
        // overlaps this epoch's copies to the devices. Every worker draws the same shuffle.
        HostData[] epochData = {
            new HostData(engine, "epoch data A", data.rows, data.features),
            new HostData(engine, "epoch data B", data.rows, data.features)
        };
        int batches = (data.rows + batch - 1) / batch;
        for (int e = done; e < epochs; e++) {
            if (e == done + 1) { // the push figures cover the epochs after the first, as the epoch times do
                stepPushNanos = 0;
                stepsPushed = 0;
            }
            boolean printEpoch = print;
            if (shares != null) {
                printEpoch = useSplit(shares.agree(e + 1), e + 1);
            }
            atEpochStart.accept(e + 1);
            HostData src = epochData[e % 2];
            src.pushShuffle(engine.op("shuffle").arg("epoch", e + 1), metricsHost(), data, seed * 1_000_003L + e);
            for (int b = 0; b < batches; b++) {
                int start = b * batch;
                pushTrainingBatch(src, start, Math.min(batch, data.rows - start));
            }
            pushEpochReport(e + 1, epochs, printEpoch);
            if (checkpoints.after(e + 1) && print) {
                System.out.printf("checkpoint after epoch %d: %s%n", e + 1, checkpoints.file());
            }
            if (shares != null) {
                kv.barrier();
            }
        }
        return done + 1;
    }

    /**
     * Splits epoch {@code epoch}'s batches over {@code v}'s workers, this worker taking its rank's share,
     * and, on its rank 0, prints the split when it changed (in an op ordered with the epoch lines).
     *
     * @return whether this worker prints the epoch's line: whether it is the view's rank 0
     */
    private boolean useSplit(WorkerShares.View v, int epoch) {
        boolean first = v.rank() == 0;
        if (split == null || split.epoch() != v.epoch()) {
            slots = v.size() * replicas.size();
            firstSlot = v.rank() * replicas.size();
            if (first) {
                String line = WorkerShares.splitLine(epoch, v);
                engine.op("split").arg("epoch", epoch).writes(progressVar).on(metricsHost())
                        .run(rc -> System.out.println(line));
            }
        }
        split = v;
        return first;
    }

    private Context metricsHost() {
        return MultiDeviceTraining.hostContext(contexts());
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
            pushBatchOps(all, constant(start), Math.min(batch, data.rows - start), false, replicas.size(), 0);
        }
        metrics.pushSummary(engine.op("evaluation"), metrics.local, progressVar, s -> lastAccuracy = s.accuracy());
        engine.waitForVar(progressVar);
        return lastAccuracy;
    }

    /**
     * One training batch ({@link #pushStep}), pushed call by call or, when capturing, replayed from the
     * graph recorded for batches of this source and size: the store's calls are in the graph too (each
     * replayed store op decides its round when it runs, as the call would).
     */
    private void pushTrainingBatch(HostData src, int start, int size) {
        long t0 = System.nanoTime();
        if (capture) {
            StepKey key = new StepKey(src, size, slots, firstSlot); // a new split is captured anew
            Graph step = steps.get(key);
            if (step == null) {
                step = captureStep(src, start, size);
                steps.put(key, step);
            }
            step.replay();
        } else {
            pushStep(src, constant(start), size);
        }
        stepPushNanos += System.nanoTime() - t0;
        stepsPushed++;
    }

    /**
     * A training batch's calls: its device and metrics ops ({@link #pushBatchOps}), then each layer's
     * gradient pushed to the store (fc2 first, as the backward pass has it) and its new weights pulled
     * into every replica.
     */
    private void pushStep(HostData src, Supplier<IntSupplier> batchStart, int size) {
        pushBatchOps(src, batchStart, size, true, slots, firstSlot);
        List<Replica> active = active(size, slots, firstSlot);
        pushLayer(2, active);
        pushLayer(1, active);
    }

    /**
     * Records a batch's calls ({@link #pushStep}) once, for every batch of {@code size} samples from
     * {@code src}: a full batch's ops read their position from a {@link BatchCursor} that steps through
     * the epoch's full batches, the short last batch's from one that stays at {@code start}. A split
     * changes only at an epoch's start, so a graph's replays are always whole epochs of its cursor.
     */
    private Graph captureStep(HostData src, int start, int size) {
        int fullBatches = data.rows / batch;
        Supplier<IntSupplier> starts = size == batch ? () -> new BatchCursor(0, batch, fullBatches)
                : () -> new BatchCursor(start, batch, 1);
        try (Capture c = engine.capture()) {
            pushStep(src, starts, size);
            return c.graph();
        }
    }

    /**
     * One batch's device and metrics ops: this worker's devices {@code firstDevice ..} of {@code devices}
     * get their slices (the positions past the batch's first, which each op reads from its own supplier
     * of {@code batchStart} when it runs), run forward (and backward, when training), and the batch's
     * metrics are recorded.
     */
    private void pushBatchOps(HostData src, Supplier<IntSupplier> batchStart, int size, boolean train, int devices,
                              int firstDevice) {
        int[] rows = split(size, devices);
        int pos = 0;
        for (int d = 0; d < firstDevice; d++) {
            pos += rows[d];
        }
        List<Replica> active = new ArrayList<>();
        int[] offsets = new int[replicas.size()];
        int[] counts = new int[replicas.size()];
        for (int i = 0; i < replicas.size(); i++) {
            int n = rows[firstDevice + i];
            if (n == 0) {
                continue;
            }
            Replica r = replicas.get(i);
            r.pushLoad(engine, src, batchStart.get(), pos, n);
            r.pushForward(engine, n, train, 1f / size); // the gradient of the mean loss over the whole batch
            if (train) {
                r.pushBackward(engine, n);
            }
            offsets[active.size()] = pos;
            counts[active.size()] = n;
            active.add(r);
            pos += n;
        }
        metrics.pushRecord(engine, src, active, batchStart.get(), offsets, counts, data.classes, train);
    }

    /** The replicas that get samples of a batch of {@code size}. */
    private List<Replica> active(int size, int devices, int firstDevice) {
        int[] rows = split(size, devices);
        List<Replica> active = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
            if (rows[firstDevice + i] != 0) {
                active.add(replicas.get(i));
            }
        }
        return active;
    }

    /** A batch start that stays the same: for ops pushed one by one. */
    private static Supplier<IntSupplier> constant(int start) {
        IntSupplier s = () -> start;
        return () -> s;
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
            if (epochEnds.size() == 1 && afterFirstEpoch != null) {
                afterFirstEpoch.run();
            }
            if (print) { // an elastic job's line has the loss in full too, for a reference to equal bit for bit
                System.out.printf(Locale.ROOT, "%sepoch %" + digits(epochs) + "d/%d %s loss %.5f  acc %5.1f%%%s%s%n",
                        overwrite, epoch, epochs, bar(1, 1), s.meanLoss(), 100.0 * s.accuracy(), ms,
                        shares == null ? "" : "  exact loss " + s.meanLoss());
            }
        });
        metrics.pushClear(engine.op("clear epoch metrics").arg("epoch", epoch));
    }

    /** Sets what the first epoch report's op runs after it has taken the epoch's time (e.g. clearing a profiler). */
    void afterFirstEpoch(Runnable r) {
        afterFirstEpoch = r;
    }

    /** The training batches pushed after the first epoch (all, with one epoch); call after {@link #pushTraining}. */
    long stepsPushed() {
        return stepsPushed;
    }

    /** The pushing thread's time in those batches' pushes and replays, in nanoseconds. */
    long stepPushNanos() {
        return stepPushNanos;
    }

    String rowsPerDeviceText() {
        int[] rows = split(batch, slots);
        StringBuilder sb = new StringBuilder();
        for (int r : rows) {
            sb.append(sb.length() == 0 ? "" : "+").append(r);
        }
        return sb.toString();
    }

    /** {@code size} rows split over {@code parts} as evenly as possible, the larger parts first. */
    static int[] split(int size, int parts) {
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
}
