package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Random;
import org.depengine.api.Engine;
import org.depengine.api.VarHandle;

/**
 * The network's initial parameters on the host, one buffer per layer (weights {@code in × out}
 * row-major, then the bias), seeded so that every worker draws the same ones; the KVStore holds the
 * trained ones.
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
}
