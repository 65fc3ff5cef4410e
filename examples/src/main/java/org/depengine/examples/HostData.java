package org.depengine.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.util.SplittableRandom;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.OpBuilder;
import org.depengine.api.VarHandle;

/**
 * Samples on the host in direct native-order buffers that device copies read from: features
 * ({@link #x}, row-major) and labels ({@link #y}), guarded by one variable.
 */
final class HostData {
    final ByteBuffer x;
    final ByteBuffer y;
    final VarHandle var;

    HostData(Engine engine, String name, int rows, int features) {
        x = ByteBuffer.allocateDirect(4 * rows * features).order(ByteOrder.nativeOrder());
        y = ByteBuffer.allocateDirect(4 * rows).order(ByteOrder.nativeOrder());
        var = engine.newVariable(name);
    }

    /** Fills the buffers with {@code data} as it is, now, on the calling thread (before any op uses them). */
    void fill(TrainingData data) {
        x.asFloatBuffer().put(data.x);
        y.asIntBuffer().put(data.y);
    }

    /**
     * Pushes an op that writes {@code data} into these buffers in an order drawn from {@code seed}: an
     * epoch's shuffle. It runs once the copies reading the previous contents are done.
     *
     * @param op the op's name and arguments (e.g. its epoch)
     */
    void pushShuffle(OpBuilder op, Context host, TrainingData data, long seed) {
        op.writes(var).on(host).run(rc -> {
            int[] order = new int[data.rows];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            SplittableRandom rnd = new SplittableRandom(seed);
            for (int i = order.length - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            FloatBuffer fx = x.asFloatBuffer();
            IntBuffer iy = y.asIntBuffer();
            int f = data.features;
            for (int i = 0; i < order.length; i++) {
                fx.put(i * f, data.x, order[i] * f, f);
                iy.put(i, data.y[order[i]]);
            }
        });
    }

    /** The labels as ints; read only in ops that read {@link #var}. */
    IntBuffer labels() {
        return y.asIntBuffer();
    }
}
