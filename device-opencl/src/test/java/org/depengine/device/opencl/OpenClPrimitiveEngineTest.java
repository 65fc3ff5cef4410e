package org.depengine.device.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.FnProperty;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Devices;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Activation;
import org.depengine.api.device.primitive.Matmul;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.device.primitive.Reduce;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.depengine.testkit.Requirements;

/**
 * Primitives inside engine ops on {@code opencl:0} (per-device engine): the copies run on the engine's
 * copy streams, the compute on its compute stream, and only the engine's dependency tracking orders them
 * (no synchronisation in the ops). A CPU op that reads the result after the copy back sees it complete.
 */
class OpenClPrimitiveEngineTest {
    private static final Context GPU = Context.of("opencl", 0);
    private static final Duration BOUND = Duration.ofSeconds(60);

    private Engine engine;
    private Device device;

    @BeforeEach
    void open() {
        Availability a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL platform (CI installs PoCL)");
        device = Devices.acquire(GPU); // held beyond the engine: the test reads buffers after waitForAll
        engine = Engine.create("perdevice");
    }

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
        if (device != null) {
            Devices.release(GPU);
        }
    }

    @Test
    void uploadComputeDownloadThroughTheEngine() {
        int m = 37;
        int k = 53;
        int n = 29;
        Random rnd = new Random(7);
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = rnd.nextFloat() * 2 - 1;
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = rnd.nextFloat() * 2 - 1;
        }
        ByteBuffer ha = device.allocateHost(a.length * 4);
        ha.asFloatBuffer().put(a);
        ByteBuffer hb = device.allocateHost(b.length * 4);
        hb.asFloatBuffer().put(b);
        ByteBuffer hc = device.allocateHost(m * n * 4);
        ByteBuffer hs = device.allocateHost(m * 4);
        Memcpy copy = device.requirePrimitive(Memcpy.class);
        Set<StreamKind> kinds = ConcurrentHashMap.newKeySet();
        float[] total = new float[1];

        try (DeviceBuffer da = device.allocate(a.length * 4L);
                DeviceBuffer db = device.allocate(b.length * 4L);
                DeviceBuffer dc = device.allocate((long) m * n * 4);
                DeviceBuffer ds = device.allocate(m * 4L)) {
            VarHandle va = engine.newVariable("a");
            VarHandle vb = engine.newVariable("b");
            VarHandle vc = engine.newVariable("c");
            VarHandle vs = engine.newVariable("rowsums");
            VarHandle vhost = engine.newVariable("host results");
            engine.pushSync(rc -> {
                kinds.add(rc.stream().kind());
                copy.hostToDevice(rc.stream(), ha, da, 0);
            }, GPU, List.of(), List.of(va), FnProperty.COPY_TO_DEVICE, 0, "upload a");
            engine.pushSync(rc -> copy.hostToDevice(rc.stream(), hb, db, 0), GPU, List.of(), List.of(vb),
                    FnProperty.COPY_TO_DEVICE, 0, "upload b");
            engine.pushSync(rc -> {
                kinds.add(rc.stream().kind());
                device.requirePrimitive(Matmul.class).sgemm(rc.stream(), false, false, m, n, k, 1f, da, db, 0f, dc);
                device.requirePrimitive(Activation.class).relu(rc.stream(), (long) m * n, dc, dc);
            }, GPU, List.of(va, vb), List.of(vc), FnProperty.NORMAL, 0, "relu(a·b)");
            engine.pushSync(rc -> device.requirePrimitive(Reduce.class).rowSums(rc.stream(), m, n, dc, ds), GPU,
                    List.of(vc), List.of(vs), FnProperty.NORMAL, 0, "row sums");
            engine.pushSync(rc -> {
                kinds.add(rc.stream().kind());
                copy.deviceToHost(rc.stream(), dc, 0, hc);
                copy.deviceToHost(rc.stream(), ds, 0, hs);
            }, GPU, List.of(vc, vs), List.of(vhost), FnProperty.COPY_FROM_DEVICE, 0, "download");
            engine.pushSync(rc -> {
                FloatBuffer s = hs.asFloatBuffer();
                for (int i = 0; i < m; i++) {
                    total[0] += s.get(i);
                }
            }, Context.cpu(), List.of(vhost), List.of(), FnProperty.NORMAL, 0, "sum on the host");
            engine.waitForAll(BOUND);
        }

        FloatBuffer c = hc.asFloatBuffer();
        float expectedTotal = 0f;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += (double) a[i * k + p] * b[p * n + j];
                }
                float relu = (float) Math.max(s, 0);
                assertEquals(relu, c.get(i * n + j), 1e-4f, "c[" + i + "][" + j + "]");
                expectedTotal += relu;
            }
        }
        assertEquals(expectedTotal, total[0], 1e-2f, "the CPU op saw the finished row sums");
        assertEquals(Set.of(StreamKind.HOST_TO_DEVICE, StreamKind.COMPUTE, StreamKind.DEVICE_TO_HOST), kinds,
                "each op ran on the stream of its property");
        assertTrue(total[0] > 0f, "relu outputs are not all zero");
    }
}
