package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.function.IntSupplier;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Stream;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Elementwise;
import org.depengine.api.device.primitive.Matmul;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.device.primitive.Reduce;
import org.depengine.api.device.primitive.SoftmaxCrossEntropy;

/**
 * One device's copy of the two-layer network (input → fc1 → ReLU → fc2 → softmax cross-entropy) and
 * the ops that run its part of a batch. Every method only pushes ops: each op names the device
 * memory it reads and writes through variables, and enqueues primitives on the op's stream.
 *
 * <p>Buffers are sized for {@code maxRows} samples; a batch may use fewer. Variables:
 * {@code input} (x, labels), each layer's {@code params} (w, b) and {@code grads} (dw, db),
 * the activations {@code a1}, the logits {@code z2}, {@code loss}, {@code dz2}, {@code da1}; on the
 * host, {@code hostOut} (per-sample loss, then logits). The gradients leave the device, and the new
 * weights come back, through the KVStore (see {@link MultiDeviceTraining}).
 */
final class Replica {
    /**
     * One fully connected layer's memory on this device. The KVStore sees it as four arrays: the
     * weights and bias (pulled into, guarded by {@link #params}) and their gradients (pushed, guarded
     * by {@link #grads}).
     */
    static final class Dense {
        final String name;
        final int in;
        final int out;
        final DeviceBuffer w;
        final DeviceBuffer b;
        final DeviceBuffer dw;
        final DeviceBuffer db;
        final VarHandle params;
        final VarHandle grads;
        final DeviceArray weights;
        final DeviceArray bias;
        final DeviceArray weightGrad;
        final DeviceArray biasGrad;

        Dense(Engine engine, Device device, String name, int in, int out) {
            this.name = name;
            this.in = in;
            this.out = out;
            w = device.allocate(4L * in * out);
            b = device.allocate(4L * out);
            dw = device.allocate(4L * in * out);
            db = device.allocate(4L * out);
            String at = name + "@" + device.context();
            params = engine.newVariable(at + ".params");
            grads = engine.newVariable(at + ".grads");
            weights = new DeviceArray(w, params);
            bias = new DeviceArray(b, params);
            weightGrad = new DeviceArray(dw, grads);
            biasGrad = new DeviceArray(db, grads);
        }

        /** The key of the weights ({@code fc1.w}); the bias is {@code fc1.b}. */
        String weightKey() {
            return name + ".w";
        }

        String biasKey() {
            return name + ".b";
        }
    }

    final Context ctx;
    final int maxRows;
    final Dense fc1;
    final Dense fc2;
    private final int classes;
    private final Memcpy memcpy;
    private final Matmul matmul;
    private final Elementwise elementwise;
    private final Activation activation;
    private final SoftmaxCrossEntropy softmax;
    private final Reduce reduce;
    private final DeviceBuffer x;
    private final DeviceBuffer labels;
    private final DeviceBuffer a1;
    private final DeviceBuffer z2;
    private final DeviceBuffer loss;
    private final DeviceBuffer dz2;
    private final DeviceBuffer da1;
    private final VarHandle input;
    private final VarHandle vA1;
    private final VarHandle vZ2;
    private final VarHandle vLoss;
    private final VarHandle vDz2;
    private final VarHandle vDa1;
    /** Per-sample loss ({@code maxRows} floats) then logits ({@code maxRows × classes}). */
    private final ByteBuffer hostOutBuf;
    final VarHandle hostOut;

    /**
     * Allocates the replica's memory on the device {@code ctx} names.
     *
     * @throws IllegalArgumentException if the device does not exist
     * @throws IllegalStateException if it is unavailable
     * @throws UnsupportedOperationException if it lacks a primitive the network needs
     */
    Replica(Engine engine, Context ctx, int maxRows, int features, int hidden, int classes) {
        Device device = Devices.device(ctx);
        this.ctx = ctx;
        this.maxRows = maxRows;
        this.classes = classes;
        memcpy = device.requirePrimitive(Memcpy.class);
        matmul = device.requirePrimitive(Matmul.class);
        elementwise = device.requirePrimitive(Elementwise.class);
        activation = device.requirePrimitive(Activation.class);
        softmax = device.requirePrimitive(SoftmaxCrossEntropy.class);
        reduce = device.requirePrimitive(Reduce.class);
        fc1 = new Dense(engine, device, "fc1", features, hidden);
        fc2 = new Dense(engine, device, "fc2", hidden, classes);
        x = device.allocate(4L * maxRows * features);
        labels = device.allocate(4L * maxRows);
        a1 = device.allocate(4L * maxRows * hidden);
        z2 = device.allocate(4L * maxRows * classes);
        loss = device.allocate(4L * maxRows);
        dz2 = device.allocate(4L * maxRows * classes);
        da1 = device.allocate(4L * maxRows * hidden);
        String at = "@" + ctx;
        input = engine.newVariable("input" + at);
        vA1 = engine.newVariable("a1" + at);
        vZ2 = engine.newVariable("z2" + at);
        vLoss = engine.newVariable("loss" + at);
        vDz2 = engine.newVariable("dz2" + at);
        vDa1 = engine.newVariable("da1" + at);
        hostOutBuf = device.allocateHost(4 * maxRows * (1 + classes));
        hostOut = engine.newVariable("outputs(host)" + at);
    }

    /**
     * Copies samples {@code first .. first+n} of {@code src} to this device (a host-to-device copy op),
     * where {@code first} is {@code offset} past the batch's first position, which the op reads from
     * {@code batchStart} when it runs (once per run).
     */
    void pushLoad(Engine engine, HostData src, IntSupplier batchStart, int offset, int n) {
        int f = fc1.in;
        engine.pushSync(rc -> {
            int first = batchStart.getAsInt() + offset;
            Stream s = rc.stream();
            memcpy.hostToDevice(s, src.x.slice(4 * first * f, 4 * n * f), x, 0);
            memcpy.hostToDevice(s, src.y.slice(4 * first, 4 * n), labels, 0);
        }, ctx, List.of(src.var), List.of(input), FnProperty.COPY_TO_DEVICE, 0, "load batch");
    }

    /**
     * Forward pass of {@code n} loaded samples, the loss (and, when training, its gradient scaled by
     * {@code gradScale}), and a device-to-host copy of the per-sample loss and logits into
     * {@link #hostOut}.
     */
    void pushForward(Engine engine, int n, boolean train, float gradScale) {
        int h = fc1.out;
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            matmul.sgemm(s, false, false, n, h, fc1.in, 1f, x, fc1.w, 0f, a1);
            elementwise.addRowVector(s, n, h, a1, fc1.b);
            activation.relu(s, (long) n * h, a1, a1);
        }, ctx, List.of(input, fc1.params), List.of(vA1), FnProperty.NORMAL, 0, "fc1 forward");
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            matmul.sgemm(s, false, false, n, classes, h, 1f, a1, fc2.w, 0f, z2);
            elementwise.addRowVector(s, n, classes, z2, fc2.b);
        }, ctx, List.of(vA1, fc2.params), List.of(vZ2), FnProperty.NORMAL, 0, "fc2 forward");
        engine.pushSync(rc -> softmax.lossAndGradient(rc.stream(), n, classes, z2, labels, loss, train ? dz2 : null, gradScale),
                ctx, List.of(vZ2, input), train ? List.of(vLoss, vDz2) : List.of(vLoss), FnProperty.NORMAL, 0,
                train ? "loss and gradient" : "loss");
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            memcpy.deviceToHost(s, loss, 0, hostOutBuf.slice(0, 4 * n));
            memcpy.deviceToHost(s, z2, 0, hostOutBuf.slice(4 * maxRows, 4 * n * classes));
        }, ctx, List.of(vLoss, vZ2), List.of(hostOut), FnProperty.COPY_FROM_DEVICE, 0, "copy outputs to host");
    }

    /**
     * Backward pass of the last forward: fc2's gradient first (so that its push can start while fc1's
     * is still being computed), then fc1's.
     */
    void pushBackward(Engine engine, int n) {
        int h = fc1.out;
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            matmul.sgemm(s, true, false, h, classes, n, 1f, a1, dz2, 0f, fc2.dw); // a1ᵀ · dz2
            reduce.columnSums(s, n, classes, dz2, fc2.db);
        }, ctx, List.of(vA1, vDz2), List.of(fc2.grads), FnProperty.NORMAL, 0, "fc2 backward");
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            matmul.sgemm(s, false, true, n, h, classes, 1f, dz2, fc2.w, 0f, da1); // dz2 · w2ᵀ
            activation.reluGrad(s, (long) n * h, a1, da1, da1);
            matmul.sgemm(s, true, false, fc1.in, h, n, 1f, x, da1, 0f, fc1.dw); // xᵀ · da1
            reduce.columnSums(s, n, h, da1, fc1.db);
        }, ctx, List.of(vDz2, fc2.params, vA1, input), List.of(vDa1, fc1.grads), FnProperty.NORMAL, 0, "fc1 backward");
    }

    /** Copies a layer's initial parameters from the host model to this device (a host-to-device copy op). */
    void pushWeightsIn(Engine engine, Dense layer, HostModel.Layer host) {
        int weights = layer.in * layer.out;
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            memcpy.hostToDevice(s, host.params.slice(0, 4 * weights), layer.w, 0);
            memcpy.hostToDevice(s, host.params.slice(4 * weights, 4 * layer.out), layer.b, 0);
        }, ctx, List.of(host.var), List.of(layer.params), FnProperty.COPY_TO_DEVICE, 0,
                "copy initial " + layer.name + " weights to device");
    }

    /** The per-sample losses of the last {@link #pushForward}; read only in ops that read {@link #hostOut}. */
    FloatBuffer hostLoss() {
        return hostOutBuf.asFloatBuffer();
    }

    /** The logits of the last {@link #pushForward}, row-major; read only in ops that read {@link #hostOut}. */
    FloatBuffer hostLogits() {
        return hostOutBuf.slice(4 * maxRows, 4 * maxRows * classes).order(hostOutBuf.order()).asFloatBuffer();
    }
}
