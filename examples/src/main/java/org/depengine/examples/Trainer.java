package org.depengine.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;
import org.depengine.api.device.DeviceArray;
import org.depengine.kvstore.KVStore;

/** One worker's training in {@link MultiDeviceTraining}: its replicas, the store, and the ops it pushes. */
final class Trainer {
    private static final int BAR = 30;
    private static final String METRICS = TrainingUpdater.METRICS;

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

    /**
     * Pushes the initial weights (rank 0's reach the store; a resumed store takes its checkpoint's), then
     * every epoch's batches and report from the first epoch not done, checkpointing as {@code checkpoints}
     * says.
     *
     * @return the first epoch trained (from 1)
     */
    int pushTraining(int epochs, long seed, boolean print, TrainingCheckpoints checkpoints) {
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
        int done = checkpoints.start();
        if (done >= epochs) {
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
            HostData src = epochData[e % 2];
            src.pushShuffle(engine.op("shuffle").arg("epoch", e + 1), metricsHost(), data, seed * 1_000_003L + e);
            for (int b = 0; b < batches; b++) {
                int start = b * batch;
                pushBatch(src, start, Math.min(batch, data.rows - start), true, totalDevices, firstDevice);
            }
            pushEpochReport(e + 1, epochs, print);
            if (checkpoints.after(e + 1) && print) {
                System.out.printf("checkpoint after epoch %d: %s%n", e + 1, checkpoints.file());
            }
        }
        return done + 1;
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
}
