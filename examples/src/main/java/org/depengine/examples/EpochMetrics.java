package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.OpBuilder;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;

/**
 * The metrics of one pass over the data, per sample position: loss, hit (1 if the arg-max is the
 * label), seen (1) — three floats each, on the host device, as a KVStore array. Each worker fills its
 * own samples' positions and leaves the others at zero, so the sum over the workers of a sync round is
 * every sample's metrics; the summary then adds them up in position order (batch by batch, device by
 * device), which is the order a single process with all the devices adds them in.
 */
final class EpochMetrics {
    /** A pass's totals. */
    record Summary(double meanLoss, long correct, long seen) {
        double accuracy() {
            return (double) correct / seen;
        }
    }

    private static final int FIELDS = 3;

    private final int rows;
    private final Context host;
    private final Memcpy memcpy;
    private final ByteBuffer zeros;
    /**
     * A batch's entries on their way to {@link #local}: used only inside the record ops, which all write
     * {@link #local} and so run one at a time, and copied out before the op returns ({@link #host} is a
     * CPU device, whose copies are done when enqueued).
     */
    private final ByteBuffer staging;
    /** This worker's entries: what it pushes. */
    final DeviceArray local;
    /** Every worker's entries: what it pulls. */
    final DeviceArray all;

    EpochMetrics(Engine engine, Context host, int rows) {
        this.rows = rows;
        this.host = host;
        Device device = Devices.device(host);
        memcpy = device.requirePrimitive(Memcpy.class);
        zeros = ByteBuffer.allocateDirect(4 * FIELDS * rows).order(ByteOrder.nativeOrder());
        staging = ByteBuffer.allocateDirect(4 * FIELDS * rows).order(ByteOrder.nativeOrder());
        local = new DeviceArray(device.allocate(4L * FIELDS * rows), engine.newVariable("epoch metrics (this worker)"));
        all = new DeviceArray(device.allocate(4L * FIELDS * rows), engine.newVariable("epoch metrics (all workers)"));
    }

    /** The array length: three floats per sample. */
    int length() {
        return FIELDS * rows;
    }

    /** Pushes an op that zeroes this worker's entries (after the ops that read them); {@code op} names it. */
    void pushClear(OpBuilder op) {
        op.writes(local.var()).on(host).run(rc -> memcpy.hostToDevice(rc.stream(), zeros.duplicate(), local.buffer(), 0));
    }

    /**
     * Pushes an op that records a batch: for each active replica {@code k}, its samples' loss and hit at
     * the positions {@code offsets[k] ..} past the batch's first position, which the op reads from
     * {@code batchStart} when it runs (once per run).
     */
    void pushRecord(Engine engine, HostData src, List<Replica> active, IntSupplier batchStart, int[] offsets,
                    int[] counts, int classes, boolean train) {
        List<VarHandle> reads = new ArrayList<>();
        reads.add(src.var);
        for (Replica r : active) {
            reads.add(r.hostOut);
        }
        engine.pushSync(rc -> {
            IntBuffer labels = src.labels();
            int start = batchStart.getAsInt();
            for (int k = 0; k < active.size(); k++) {
                Replica r = active.get(k);
                int first = start + offsets[k];
                int n = counts[k];
                FloatBuffer loss = r.hostLoss();
                FloatBuffer logits = r.hostLogits();
                ByteBuffer entries = staging.slice(0, 4 * FIELDS * n).order(staging.order());
                FloatBuffer e = entries.asFloatBuffer();
                for (int i = 0; i < n; i++) {
                    int best = 0;
                    for (int c = 1; c < classes; c++) {
                        if (logits.get(i * classes + c) > logits.get(i * classes + best)) {
                            best = c;
                        }
                    }
                    e.put(FIELDS * i, loss.get(i));
                    e.put(FIELDS * i + 1, best == labels.get(first + i) ? 1 : 0);
                    e.put(FIELDS * i + 2, 1);
                }
                memcpy.hostToDevice(rc.stream(), entries, local.buffer(), 4L * FIELDS * first);
            }
        }, host, reads, List.of(local.var()), FnProperty.NORMAL, 0, train ? "metrics" : "evaluation metrics");
    }

    /**
     * Pushes an op that reads {@code from} (this class's {@link #local} or {@link #all}), adds the
     * entries up in position order and hands the summary to {@code then}, inside the op (which also
     * writes {@code progress}, so that reports come out in order). {@code op} gives its name and arguments.
     */
    void pushSummary(OpBuilder op, DeviceArray from, VarHandle progress, Consumer<Summary> then) {
        ByteBuffer copy = ByteBuffer.allocateDirect(4 * FIELDS * rows).order(ByteOrder.nativeOrder());
        op.reads(from.var()).writes(progress).on(host).run(rc -> {
            memcpy.deviceToHost(rc.stream(), from.buffer(), 0, copy.duplicate());
            FloatBuffer e = copy.asFloatBuffer();
            double loss = 0;
            long correct = 0;
            long seen = 0;
            for (int i = 0; i < rows; i++) {
                if (e.get(FIELDS * i + 2) != 0) {
                    loss += e.get(FIELDS * i);
                    correct += (long) e.get(FIELDS * i + 1);
                    seen++;
                }
            }
            then.accept(new Summary(loss / seen, correct, seen));
        });
    }
}
