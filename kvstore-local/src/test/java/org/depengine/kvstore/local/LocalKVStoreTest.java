package org.depengine.kvstore.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceArray;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.kvstore.KVStore;
import org.depengine.kvstore.KVStoreSettings;
import org.depengine.kvstore.Updater;
import org.junit.jupiter.api.Test;

/** What is particular to the {@code local} store: how it is found and opened, and its one worker. */
class LocalKVStoreTest {

    /** A local store on {@code engine}, opened with {@code settings} (short names) on top of the defaults. */
    static KVStore open(Engine engine, Map<String, String> settings) {
        KVStoreSettings.Builder b = KVStoreSettings.builder();
        settings.forEach(b::set);
        return KVStore.open(engine, "local", b.build());
    }

    @Test
    void foundByTypeThroughServiceLoader() {
        assertTrue(KVStore.types().contains("local"), KVStore.types().toString());
        try (Engine engine = Engine.create("naive"); KVStore store = KVStore.open(engine, "local")) {
            assertEquals("local", store.type());
            assertEquals(0, store.rank());
            assertEquals(1, store.numWorkers());
            store.barrier(); // one worker: returns at once
        }
    }

    @Test
    void severalWorkersAreRefusedWithTheWayOut() {
        try (Engine engine = Engine.create("naive")) {
            KVStoreSettings two = KVStoreSettings.builder().numWorkers(2).rank(1).build();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> KVStore.open(engine, "local", two));
            assertTrue(e.getMessage().contains("numWorkers=2") && e.getMessage().contains("dist_sync"), e.getMessage());
        }
    }

    /**
     * The training step MultiDeviceTraining does by hand: the gradients of two devices summed in device
     * order, {@code w -= lr · Σ g} on the host, the weights copied back to both devices, for layers of
     * different sizes; equal to the same arithmetic done serially.
     */
    @Test
    void aTrainingStepOverTwoDevicesEqualsTheHandWrittenOne() {
        try (Engine engine = Engine.create("perdevice"); KVStore store = KVStore.open(engine, "local")) {
            float lr = 0.1f;
            store.setUpdater(Updater.sgd(lr));
            int[] sizes = {12, 3};
            Context[] devices = {Context.cpu(0), Context.cpu(1)};
            for (int layer = 0; layer < sizes.length; layer++) {
                int n = sizes[layer];
                float[] w = new float[n];
                float[][] g = new float[2][n];
                for (int i = 0; i < n; i++) {
                    w[i] = 0.5f * i - layer;
                    g[0][i] = 0.013f * i + 0.1f;
                    g[1][i] = -0.007f * i + 0.3f * layer;
                }
                String key = "layer" + layer;
                store.init(key, filled(engine, devices[0], w, key + ".w0"));
                DeviceArray[] grads = {filled(engine, devices[0], g[0], key + ".g0"),
                    filled(engine, devices[1], g[1], key + ".g1")};
                DeviceArray[] weights = {filled(engine, devices[0], new float[n], key + ".w0'"),
                    filled(engine, devices[1], new float[n], key + ".w1'")};
                store.push(key, List.of(grads), -layer);
                store.pull(key, List.of(weights), -layer);
                float[] expected = new float[n];
                for (int i = 0; i < n; i++) {
                    float sum = 0;
                    sum += g[0][i];
                    sum += g[1][i];
                    expected[i] = w[i] - lr * sum;
                }
                for (DeviceArray out : weights) {
                    assertArrayEquals(expected, read(engine, out), key + " on " + out.context());
                }
            }
        }
    }

    private static DeviceArray filled(Engine engine, Context ctx, float[] data, String name) {
        Device device = Devices.device(ctx);
        DeviceBuffer b = device.allocate(4L * data.length);
        DeviceArray a = new DeviceArray(b, engine.newVariable(name));
        ByteBuffer host = ByteBuffer.allocateDirect(4 * data.length).order(ByteOrder.nativeOrder());
        host.asFloatBuffer().put(data);
        Memcpy memcpy = device.requirePrimitive(Memcpy.class);
        engine.pushSync(rc -> memcpy.hostToDevice(rc.stream(), host, b, 0), ctx, List.of(), List.of(a.var()),
                FnProperty.COPY_TO_DEVICE, 0, "fill " + name);
        return a;
    }

    private static float[] read(Engine engine, DeviceArray a) {
        ByteBuffer host = ByteBuffer.allocateDirect((int) a.byteLength()).order(ByteOrder.nativeOrder());
        VarHandle done = engine.newVariable("read");
        Memcpy memcpy = a.device().requirePrimitive(Memcpy.class);
        engine.pushSync(rc -> memcpy.deviceToHost(rc.stream(), a.buffer(), a.offsetBytes(), host), a.context(),
                List.of(a.var()), List.of(done), FnProperty.COPY_FROM_DEVICE, 0, "read " + a);
        engine.waitForVar(done);
        float[] out = new float[(int) a.length()];
        host.asFloatBuffer().get(out);
        return out;
    }
}
