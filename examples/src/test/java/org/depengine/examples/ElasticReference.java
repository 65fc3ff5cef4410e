package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.spi.Rounds;

/**
 * The one-process reference of an elastic {@code MultiDeviceTraining} run (default spiral data), computed from
 * the membership history the run printed. Its definition:
 *
 * <ul>
 *   <li><b>Workers and views.</b> The job starts with workers {@code w0 .. wN-1} in rank order (view 0), each
 *   with {@code D} devices. The run prints each view it moved to: its workers in rank order and, per key, the
 *   first round summed over it. Key {@code k}'s round {@code r} is summed over the <em>view in force</em>: the
 *   last view whose first round of {@code k} is at most {@code r}, else view 0.</li>
 *   <li><b>Rounds.</b> An elastic run ends every epoch with a barrier, so epoch {@code e} (from 1) is period
 *   {@code e-1}: batch {@code b} (from 1) pushes round {@code (e-1, b)} of each layer's keys, and the epoch's
 *   metrics and its split ({@code shares}) are round {@code (e-1, 1)} of theirs.</li>
 *   <li><b>Split.</b> Epoch {@code e}'s batches are split over the view in force for {@code shares}' round
 *   {@code (e-1, 1)}, of {@code n} workers: a batch of {@code size} samples is split over {@code nD} slots as
 *   evenly as possible, the larger first; the worker of rank {@code i} trains slots {@code iD .. iD+D-1}, one
 *   per device in device order.</li>
 *   <li><b>Training</b>, serial, from the example's initial weights and on its shuffles: each slot runs the
 *   example's own forward and backward ops ({@link Replica}, on a CPU device) on its samples with the current
 *   weights, the loss's gradient scaled by {@code 1/size}. A worker's gradient of a key is its devices'
 *   gradients added from 0 in device order (one device's as it is), as a push sums its values. The round's sum
 *   of key {@code k} is the gradients of the workers of the view in force for {@code k}'s round, added in that
 *   view's rank order from the first as it is, as the store sums ({@code Sums}); each of them must be a worker
 *   of the epoch's split (else the history is not one this run can have), but for a joiner, which is in no
 *   round of a period before its first (its change line says {@code from period P}). The key's new weights are
 *   {@link TrainingUpdater}'s (SGD) on that sum.</li>
 *   <li><b>The epoch's figures.</b> The samples counted are those trained by the workers of the view in force
 *   for the metrics' round {@code (e-1, 1)}: the loss is their per-sample losses (floats) added in sample
 *   position order as doubles, over their number; the accuracy, their arg-max hits over that number. This is
 *   the arithmetic of the example's metrics, so the losses are equal to the last bit.</li>
 * </ul>
 * Float order: every sum above is the one the distributed run makes, in the same order, and the devices'
 * arithmetic is the same code on the same shapes; so nothing is approximated. Not thread-safe.
 */
final class ElasticReference {
    private static final Pattern CHANGE = Pattern.compile("^membership: view (\\d+) \\(during epoch \\d+\\): workers "
            + "([^;]+); this worker rank \\d+; left: (.*); joined: (.*); first rounds summed over it \\(period:index\\): "
            + "(.+)$");
    private static final Pattern SPLIT = Pattern.compile("^epoch (\\d+): each batch split over the (\\d+) workers? of "
            + "view (-?\\d+) \\(([^)]*)\\), in rank order$");
    private static final List<String> LAYER_KEYS = List.of("fc1.w", "fc1.b", "fc2.w", "fc2.b");
    /** A joiner in a change line: {@code w3 (from period 20)}. */
    private static final Pattern JOINED = Pattern.compile("(w\\d+) \\(from period (\\d+)\\)");

    /**
     * A view: its epoch, its workers in rank order, each key's first round summed over it, and the workers it
     * admitted with their first periods.
     */
    record View(int epoch, List<String> workers, Map<String, Long> firstRoundOf, Map<String, Integer> joinedFrom) {
        View(int epoch, List<String> workers, Map<String, Long> firstRoundOf) {
            this(epoch, workers, firstRoundOf, Map.of());
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("view " + epoch + " " + workers);
            firstRoundOf.forEach((k, r) -> sb.append(' ').append(k).append('=').append(Rounds.period(r)).append(':')
                    .append(Rounds.index(r)));
            return sb.toString();
        }
    }

    /** An epoch's figures: the loss as computed (a double) and the samples hit and counted. */
    record Epoch(double loss, long correct, long seen) {
        double accuracy() {
            return (double) correct / seen;
        }
    }

    /** The views a run's output printed, after view 0 of {@code workers} workers, in epoch order. */
    static List<View> history(String out, int workers) {
        List<View> views = new ArrayList<>();
        List<String> first = new ArrayList<>();
        for (int r = 0; r < workers; r++) {
            first.add("w" + r);
        }
        views.add(new View(0, first, Map.of()));
        out.lines().map(CHANGE::matcher).filter(Matcher::matches).forEach(m -> {
            Map<String, Long> rounds = new TreeMap<>();
            for (String kv : m.group(5).split(" ")) {
                String[] r = kv.substring(kv.indexOf('=') + 1).split(":");
                rounds.put(kv.substring(0, kv.indexOf('=')), Rounds.of(Integer.parseInt(r[0]), Long.parseLong(r[1])));
            }
            Map<String, Integer> joined = new TreeMap<>();
            Matcher j = JOINED.matcher(m.group(4));
            while (j.find()) {
                joined.put(j.group(1), Integer.parseInt(j.group(2)));
            }
            views.add(new View(Integer.parseInt(m.group(1)), List.of(m.group(2).split(" ")), rounds, joined));
        });
        return views;
    }

    /** The first period of worker {@code w}'s rounds: a joiner's, as the view that admitted it says; else 0. */
    static int firstPeriod(List<View> views, String w) {
        return views.stream().filter(v -> v.joinedFrom().containsKey(w)).mapToInt(v -> v.joinedFrom().get(w)).min()
                .orElse(0);
    }

    /** The splits a run printed: epoch → the view's epoch and workers, at each epoch where the split changed. */
    static Map<Integer, View> splits(String out) {
        Map<Integer, View> splits = new LinkedHashMap<>();
        out.lines().map(SPLIT::matcher).filter(Matcher::matches).forEach(m -> splits.put(Integer.parseInt(m.group(1)),
                new View(Integer.parseInt(m.group(3)), List.of(m.group(4).split(" ")), Map.of())));
        return splits;
    }

    /** The view of {@code views} in force for {@code key}'s {@code round}. */
    static View inForce(List<View> views, String key, long round) {
        View in = views.get(0);
        for (View v : views.subList(1, views.size())) {
            if (v.firstRoundOf().getOrDefault(key, 0L) <= round) {
                in = v;
            }
        }
        return in;
    }

    private final Engine engine;
    private final TrainingData data;
    private final int batch;
    private final int devices;
    private final TrainingUpdater updater;
    private final Replica replica;
    private final HostModel model;
    private final HostData src;
    private final Memcpy memcpy = Devices.device(Context.cpu(0)).requirePrimitive(Memcpy.class);
    /** The stored weights by key. */
    private final Map<String, float[]> stored = new LinkedHashMap<>();

    private ElasticReference(Engine engine, int devices, int batch, int hidden, float lr, int seed) {
        this.engine = engine;
        this.devices = devices;
        data = TrainingData.spiral(200, 3, 0.15, seed);
        this.batch = Math.min(batch, data.rows);
        updater = new TrainingUpdater(lr);
        replica = new Replica(engine, Context.cpu(0), this.batch, data.features, hidden, data.classes);
        model = new HostModel(engine, data.features, hidden, data.classes, seed + 1L);
        src = new HostData(engine, "reference data", data.rows, data.features);
        for (HostModel.Layer l : List.of(model.fc1, model.fc2)) {
            FloatBuffer p = l.params.asFloatBuffer();
            float[] w = new float[l.in * l.out];
            float[] b = new float[l.out];
            p.get(0, w);
            p.get(w.length, b);
            String name = l == model.fc1 ? "fc1" : "fc2";
            stored.put(name + ".w", w);
            stored.put(name + ".b", b);
        }
    }

    /**
     * The figures of {@code epochs} epochs of a run with {@code devices} devices per worker and the membership
     * history {@code views} (from {@link #history}); the other arguments are the run's options.
     */
    static List<Epoch> epochs(List<View> views, int devices, int epochs, int batch, int hidden, float lr, int seed) {
        try (Engine engine = Engine.create("naive")) {
            ElasticReference ref = new ElasticReference(engine, devices, batch, hidden, lr, seed);
            List<Epoch> out = new ArrayList<>();
            for (int e = 1; e <= epochs; e++) {
                out.add(ref.epoch(views, e, seed));
            }
            return out;
        }
    }

    /** Epoch {@code e} (from 1). */
    private Epoch epoch(List<View> views, int e, int seed) {
        src.pushShuffle(engine.op("shuffle"), Context.cpu(0), data, seed * 1_000_003L + (e - 1));
        View split = inForce(views, WorkerShares.KEY, Rounds.of(e - 1, 1));
        View counted = inForce(views, TrainingUpdater.METRICS, Rounds.of(e - 1, 1));
        float[] loss = new float[data.rows];
        boolean[] hit = new boolean[data.rows];
        boolean[] seen = new boolean[data.rows];
        int batches = (data.rows + batch - 1) / batch;
        for (int b = 0; b < batches; b++) {
            int start = b * batch;
            int size = Math.min(batch, data.rows - start);
            int[] rows = Trainer.split(size, split.workers().size() * devices);
            Map<String, Map<String, float[]>> grads = new LinkedHashMap<>(); // worker → key → its gradient
            int pos = start;
            for (int i = 0; i < split.workers().size(); i++) {
                String worker = split.workers().get(i);
                List<Map<String, float[]>> perDevice = new ArrayList<>();
                for (int d = 0; d < devices; d++) {
                    int n = rows[i * devices + d];
                    if (n == 0) {
                        continue;
                    }
                    perDevice.add(slot(start, pos - start, n, size));
                    FloatBuffer l = replica.hostLoss();
                    FloatBuffer z = replica.hostLogits();
                    for (int s = 0; s < n; s++) {
                        loss[pos + s] = l.get(s);
                        hit[pos + s] = argMax(z, s) == src.labels().get(pos + s);
                        seen[pos + s] = counted.workers().contains(worker);
                    }
                    pos += n;
                }
                grads.put(worker, workerSum(perDevice));
            }
            for (String key : LAYER_KEYS) {
                View in = inForce(views, key, Rounds.of(e - 1, b + 1));
                float[] sum = null;
                for (String w : in.workers()) {
                    if (e - 1 < firstPeriod(views, w)) {
                        continue; // a joiner ended every period before its first: no push of it in this round
                    }
                    if (!grads.containsKey(w)) {
                        throw new AssertionError("key " + key + "'s round of epoch " + e + " batch " + (b + 1)
                                + " is summed over view " + in.epoch() + " " + in.workers() + ", but " + w
                                + " is not in the epoch's split " + split.workers());
                    }
                    float[] g = grads.get(w).get(key);
                    if (sum == null) {
                        sum = g.clone();
                    } else {
                        for (int j = 0; j < sum.length; j++) {
                            sum[j] += g[j];
                        }
                    }
                }
                updater.update(key, FloatBuffer.wrap(sum), FloatBuffer.wrap(stored.get(key)));
            }
        }
        double total = 0;
        long correct = 0;
        long count = 0;
        for (int p = 0; p < data.rows; p++) {
            if (seen[p]) {
                total += loss[p];
                correct += hit[p] ? 1 : 0;
                count++;
            }
        }
        return new Epoch(total / count, correct, count);
    }

    /** A worker's gradient of each key: its devices' added from 0 in device order, one device's as it is. */
    private static Map<String, float[]> workerSum(List<Map<String, float[]>> perDevice) {
        if (perDevice.size() == 1) {
            return perDevice.get(0);
        }
        Map<String, float[]> sum = new LinkedHashMap<>();
        for (String key : LAYER_KEYS) {
            float[] s = new float[perDevice.get(0).get(key).length];
            for (int j = 0; j < s.length; j++) {
                float acc = 0;
                for (Map<String, float[]> g : perDevice) {
                    acc += g.get(key)[j];
                }
                s[j] = acc;
            }
            sum.put(key, s);
        }
        return sum;
    }

    /**
     * One slot: {@code n} samples at {@code offset} past the batch's {@code start}, forward and backward with the
     * stored weights, on the example's ops; returns the gradients, leaving the losses and logits on the host.
     */
    private Map<String, float[]> slot(int start, int offset, int n, int size) {
        for (HostModel.Layer l : List.of(model.fc1, model.fc2)) {
            String name = l == model.fc1 ? "fc1" : "fc2";
            FloatBuffer p = l.params.asFloatBuffer();
            p.put(0, stored.get(name + ".w"));
            p.put(l.in * l.out, stored.get(name + ".b"));
            replica.pushWeightsIn(engine, l == model.fc1 ? replica.fc1 : replica.fc2, l);
        }
        replica.pushLoad(engine, src, () -> start, offset, n);
        replica.pushForward(engine, n, true, 1f / size);
        replica.pushBackward(engine, n);
        Map<String, float[]> g = new LinkedHashMap<>();
        for (Replica.Dense d : List.of(replica.fc1, replica.fc2)) {
            g.put(d.weightKey(), read(d, d.in * d.out, true));
            g.put(d.biasKey(), read(d, d.out, false));
        }
        engine.waitForAll();
        return g;
    }

    /** A layer's weight or bias gradient, copied to the host (waits). */
    private float[] read(Replica.Dense d, int floats, boolean weights) {
        ByteBuffer host = ByteBuffer.allocateDirect(4 * floats).order(ByteOrder.nativeOrder());
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), weights ? d.dw : d.db, 0, host), replica.ctx,
                List.of(d.grads), List.of(), FnProperty.COPY_FROM_DEVICE, 0, "read " + d.name + " gradient");
        engine.waitForAll();
        float[] out = new float[floats];
        host.asFloatBuffer().get(out);
        return out;
    }

    private int argMax(FloatBuffer logits, int row) {
        int best = 0;
        for (int c = 1; c < data.classes; c++) {
            if (logits.get(row * data.classes + c) > logits.get(row * data.classes + best)) {
                best = c;
            }
        }
        return best;
    }
}
