package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
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
 * host, each layer's {@code hostGrads} and {@code hostOut} (per-sample loss, then logits).
 */
final class Replica {
    /** One fully connected layer's memory on this device, and its gradient's copy on the host. */
    static final class Dense {
        final int in;
        final int out;
        final DeviceBuffer w;
        final DeviceBuffer b;
        final DeviceBuffer dw;
        final DeviceBuffer db;
        final VarHandle params;
        final VarHandle grads;
        final VarHandle hostGrads;
        /** dw (in × out floats) then db (out floats), as {@link HostModel} lays out a layer's parameters. */
        final ByteBuffer hostGradBuf;

        Dense(Engine engine, Device device, String name, int in, int out) {
            this.in = in;
            this.out = out;
            w = device.allocate(4L * in * out);
            b = device.allocate(4L * out);
            dw = device.allocate(4L * in * out);
            db = device.allocate(4L * out);
            String at = name + "@" + device.context();
            params = engine.newVariable(at + ".params");
            grads = engine.newVariable(at + ".grads");
            hostGrads = engine.newVariable(at + ".grads(host)");
            hostGradBuf = device.allocateHost(4 * (in * out + out));
        }

        /** The host copy of the gradient, as floats: dw then db. Read it only in ops that read {@link #hostGrads}. */
        FloatBuffer hostGradients() {
            return hostGradBuf.asFloatBuffer();
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

    /** Copies samples {@code first .. first+n} of {@code src} to this device (a host-to-device copy op). */
    void pushLoad(Engine engine, HostData src, int first, int n) {
        int f = fc1.in;
        engine.pushSync(rc -> {
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
     * Backward pass of the last forward: each layer's gradient is copied to the host as soon as it
     * exists, fc2's while fc1's is still being computed.
     */
    void pushBackward(Engine engine, int n) {
        int h = fc1.out;
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            matmul.sgemm(s, true, false, h, classes, n, 1f, a1, dz2, 0f, fc2.dw); // a1ᵀ · dz2
            reduce.columnSums(s, n, classes, dz2, fc2.db);
        }, ctx, List.of(vA1, vDz2), List.of(fc2.grads), FnProperty.NORMAL, 0, "fc2 backward");
        pushGradientCopy(engine, fc2, "copy fc2 gradient to host");
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            matmul.sgemm(s, false, true, n, h, classes, 1f, dz2, fc2.w, 0f, da1); // dz2 · w2ᵀ
            activation.reluGrad(s, (long) n * h, a1, da1, da1);
            matmul.sgemm(s, true, false, fc1.in, h, n, 1f, x, da1, 0f, fc1.dw); // xᵀ · da1
            reduce.columnSums(s, n, h, da1, fc1.db);
        }, ctx, List.of(vDz2, fc2.params, vA1, input), List.of(vDa1, fc1.grads), FnProperty.NORMAL, 0, "fc1 backward");
        pushGradientCopy(engine, fc1, "copy fc1 gradient to host");
    }

    private void pushGradientCopy(Engine engine, Dense layer, String name) {
        int weights = layer.in * layer.out;
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            memcpy.deviceToHost(s, layer.dw, 0, layer.hostGradBuf.slice(0, 4 * weights));
            memcpy.deviceToHost(s, layer.db, 0, layer.hostGradBuf.slice(4 * weights, 4 * layer.out));
        }, ctx, List.of(layer.grads), List.of(layer.hostGrads), FnProperty.COPY_FROM_DEVICE, 0, name);
    }

    /** Copies a layer's parameters from the host model to this device (a host-to-device copy op). */
    void pushWeightsIn(Engine engine, Dense layer, HostModel.Layer host) {
        int weights = layer.in * layer.out;
        engine.pushSync(rc -> {
            Stream s = rc.stream();
            memcpy.hostToDevice(s, host.params.slice(0, 4 * weights), layer.w, 0);
            memcpy.hostToDevice(s, host.params.slice(4 * weights, 4 * layer.out), layer.b, 0);
        }, ctx, List.of(host.var), List.of(layer.params), FnProperty.COPY_TO_DEVICE, 0,
                "copy " + (layer == fc1 ? "fc1" : "fc2") + " weights to device");
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
