package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;

/**
 * The master copy of the network's parameters on the host, one buffer per layer (weights
 * {@code in × out} row-major, then the bias), and the SGD step that sums the replicas' gradients into
 * it.
 */
final class HostModel {
    /** One layer's parameters on the host and the variable guarding them. */
    static final class Layer {
        final int in;
        final int out;
        final ByteBuffer params;
        final VarHandle var;

        Layer(Engine engine, String name, int in, int out) {
            this.in = in;
            this.out = out;
            params = ByteBuffer.allocateDirect(4 * (in * out + out)).order(ByteOrder.nativeOrder());
            var = engine.newVariable(name + "(host)");
        }

        /** He initialisation of the weights (the bias starts at 0), now, before any op uses them. */
        void init(Random rnd) {
            FloatBuffer p = params.asFloatBuffer();
            double scale = Math.sqrt(2.0 / in);
            for (int i = 0; i < in * out; i++) {
                p.put(i, (float) (rnd.nextGaussian() * scale));
            }
        }
    }

    final Layer fc1;
    final Layer fc2;

    HostModel(Engine engine, int features, int hidden, int classes, long seed) {
        fc1 = new Layer(engine, "fc1", features, hidden);
        fc2 = new Layer(engine, "fc2", hidden, classes);
        Random rnd = new Random(seed);
        fc1.init(rnd);
        fc2.init(rnd);
    }

    /**
     * Pushes the SGD step of one layer on {@code host}: {@code params -= lr · Σ grads}, the sum taken
     * over the replicas in list order, element by element, so the result does not depend on which
     * replica finished first. It runs as soon as every listed replica's gradient of this layer is on
     * the host, while the other layer may still be computing.
     */
    void pushSgd(Engine engine, Context host, Layer layer, List<Replica.Dense> replicas, float lr) {
        List<VarHandle> reads = new ArrayList<>();
        for (Replica.Dense r : replicas) {
            reads.add(r.hostGrads);
        }
        engine.pushSync(rc -> {
            FloatBuffer p = layer.params.asFloatBuffer();
            FloatBuffer[] g = new FloatBuffer[replicas.size()];
            for (int d = 0; d < g.length; d++) {
                g[d] = replicas.get(d).hostGradients();
            }
            for (int i = 0; i < p.limit(); i++) {
                float sum = 0;
                for (FloatBuffer gd : g) {
                    sum += gd.get(i);
                }
                p.put(i, p.get(i) - lr * sum);
            }
        }, host, reads, List.of(layer.var), FnProperty.NORMAL, 0, "sum gradients, SGD step " + (layer == fc1 ? "fc1" : "fc2"));
    }
}
