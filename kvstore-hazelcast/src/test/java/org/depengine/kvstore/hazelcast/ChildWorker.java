package org.depengine.kvstore.hazelcast;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;

/**
 * A worker in a child JVM for {@link WorkerKillTest}: joins as the rank its arguments give, inits
 * {@code fc1.w}, pushes and pulls round 1, prints {@code ROUND 1 DONE}, then waits to be killed
 * (mid-epoch: it never pushes round 2). Arguments: {@code name=value} store settings.
 */
public final class ChildWorker {
    private ChildWorker() {
    }

    public static void main(String[] args) throws Exception {
        try (Engine engine = Engine.create("perdevice");
             KVStore kv = KVStore.open(engine, "dist_sync", settings(args))) {
            DeviceArray w = WorkerKillTest.array(engine, "w");
            WorkerKillTest.write(engine, w, 1);
            kv.init("fc1.w", w);
            kv.push("fc1.w", w);
            kv.pull("fc1.w", w);
            engine.waitForVar(w.var());
            System.out.println("ROUND 1 DONE");
            System.out.flush();
            Thread.sleep(120_000); // killed long before
        }
    }

    /** A child worker's store settings: its arguments, each {@code name=value}. */
    static KVStoreSettings settings(String[] args) {
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        for (String a : args) {
            int eq = a.indexOf('=');
            b.set(a.substring(0, eq), a.substring(eq + 1));
        }
        return b.build();
    }

    static Memcpy memcpy() {
        return Devices.device(Context.cpu()).requirePrimitive(Memcpy.class);
    }

    static ByteBuffer floats(float v, int n) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
        for (int i = 0; i < n; i++) {
            b.putFloat(4 * i, v);
        }
        return b;
    }

    /** Waits for {@code a}'s writes and returns its first 4 floats. */
    static float[] read(Engine engine, DeviceArray a) {
        ByteBuffer host = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        engine.pushSync(rc -> memcpy().deviceToHost(rc.stream(), a.buffer(), 0, host), Context.cpu(),
                List.of(a.var()), List.of(engine.newVariable("read")), FnProperty.NORMAL, 0, "read");
        engine.waitForAll(Duration.ofSeconds(60));
        float[] got = new float[4];
        host.asFloatBuffer().get(got);
        return got;
    }

    static void push(Engine engine, DeviceArray a, float v) {
        ByteBuffer src = floats(v, (int) a.length());
        engine.pushSync(rc -> memcpy().hostToDevice(rc.stream(), src, a.buffer(), 0), Context.cpu(), List.of(),
                List.of(a.var()), FnProperty.NORMAL, 0, "write " + v);
    }
}
