package org.depengine.device.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineException;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Devices;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Memcpy;
import org.depengine.api.spi.EngineConfig;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifetime of a real OpenCL device (PoCL here): the last engine using {@code opencl} closes it,
 * the next opens it afresh; the work enqueued before, with its completion callbacks, is finished
 * before anything is freed; its buffers, streams and kernels then fail clearly. The close/reopen
 * cycles run 5 times per test here and 300 times with {@code -Ddepengine.test.long=true}, with
 * callbacks in flight, buffers left for the close to free, buffers of closed devices closed late,
 * and garbage collections in between.
 *
 * <p>Every test assumes that nothing else in this JVM holds the {@code opencl} type (the other test
 * classes of this module give it back when they end).
 */
class OpenClDeviceLifetimeTest {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClDeviceLifetimeTest.class);
    private static final Context CL0 = Context.of("opencl", 0);
    private static final boolean LONG = Boolean.getBoolean("depengine.test.long");
    private static final int CYCLES = LONG ? 300 : 5;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String KERNELS = """
            __kernel void affine(__global float* x, float a, float b, int n) {
                int i = get_global_id(0);
                if (i < n) x[i] = x[i] * a + b;
            }
            __kernel void slow(__global float* x, int iters) {
                int i = get_global_id(0);
                float v = x[i];
                for (int k = 0; k < iters; k++) {
                    v = v * 0.999999f + 1.0f;
                }
                x[i] = v;
            }
            """;

    private final List<Engine> engines = new ArrayList<>();

    @BeforeEach
    void needsOpenCl() {
        Requirements.assumeDevice("opencl", Devices.provider("opencl").probe(), "needs an OpenCL runtime (CI installs PoCL)");
    }

    @AfterEach
    void closeEngines() {
        engines.forEach(Engine::close);
    }

    private Engine engine() {
        Engine e = Engine.create("perdevice", EngineConfig.of(Map.of("depengine.device.workers", "2",
                "depengine.hangDoctorMs", "0")));
        engines.add(e);
        return e;
    }

    private static OpenClStream stream(RunContext rc) {
        return (OpenClStream) rc.stream();
    }

    /** The device an engine runs {@code opencl:0} ops on (asked inside an op, on the engine's stream). */
    private static OpenClDevice deviceOf(Engine engine) {
        VarHandle v = engine.newVariable("grab");
        AtomicReference<OpenClDevice> d = new AtomicReference<>();
        engine.pushSync(rc -> d.set(stream(rc).device()), CL0, List.of(), List.of(v), FnProperty.NORMAL, 0, "grab");
        engine.waitForAll(WAIT);
        return d.get();
    }

    /**
     * One engine's worth of work: {@code batches} chains h2d, kernel, d2h on three streams (completion
     * callbacks on each), each batch's buffer freed by deleteVariable; results checked exactly.
     */
    private static void work(Engine engine, OpenClDevice device, int batches, int n) {
        OpenClKernel affine = device.kernel(KERNELS, "affine");
        List<ByteBuffer> outs = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            VarHandle dev = engine.newVariable("dev" + b);
            VarHandle res = engine.newVariable("res" + b);
            ByteBuffer in = device.allocateHost(4 * n);
            for (int i = 0; i < n; i++) {
                in.putFloat(4 * i, b * 100 + i);
            }
            ByteBuffer out = device.allocateHost(4 * n);
            outs.add(out);
            OpenClBuffer mine = device.allocate(4L * n);
            engine.pushSync(rc -> stream(rc).write(mine, 0, in), CL0, List.of(), List.of(dev), FnProperty.COPY_TO_DEVICE,
                    0, "h2d" + b);
            engine.pushSync(rc -> affine.launch(stream(rc), new long[] {n}, mine, 2f, 1f, n), CL0, List.of(),
                    List.of(dev), FnProperty.NORMAL, 0, "compute" + b);
            engine.pushSync(rc -> stream(rc).read(mine, 0, out), CL0, List.of(dev), List.of(res),
                    FnProperty.COPY_FROM_DEVICE, 0, "d2h" + b);
            engine.deleteVariable(rc -> mine.close(), CL0, dev);
        }
        engine.waitForAll(WAIT);
        for (int b = 0; b < batches; b++) {
            for (int i = 0; i < n; i++) {
                assertEquals((b * 100 + i) * 2f + 1f, outs.get(b).getFloat(4 * i), "batch " + b + " element " + i);
            }
        }
    }

    @Test
    void theLastEngineClosesTheDeviceAndTheNextOpensAFreshOne() {
        Engine first = engine();
        Engine second = engine();
        OpenClDevice d = deviceOf(first);
        assertSame(d, deviceOf(second), "engines share the device");
        OpenClBuffer leftOver = d.allocate(64); // never closed by the test: the device frees it
        OpenClKernel kernel = d.kernel(KERNELS, "affine");
        first.close();
        assertFalse(d.isClosed(), "another engine still uses the device");
        work(second, d, 3, 256);
        second.close();
        assertTrue(d.isClosed(), "the last engine closed the device");

        IllegalStateException e = assertThrows(IllegalStateException.class, leftOver::mem);
        assertTrue(e.getMessage().contains("opencl:0") && e.getMessage().contains("was closed")
                && e.getMessage().contains(Devices.KEEP_OPEN_PROPERTY), e.getMessage());
        leftOver.close(); // freed with the device: nothing more to do, and no second release
        assertThrows(IllegalStateException.class, () -> d.allocate(64));
        assertThrows(IllegalStateException.class, () -> d.createStream(StreamKind.COMPUTE));
        assertThrows(IllegalStateException.class, () -> d.kernel(KERNELS, "affine"));
        assertThrows(IllegalStateException.class, d::clContext);

        Engine third = engine();
        OpenClDevice again = deviceOf(third);
        assertNotSame(d, again, "reopened for the next engine");
        assertFalse(again.isClosed());
        work(third, again, 3, 256);
        // Objects of the closed device fail clearly in the new device's ops too.
        VarHandle v = third.newVariable("stale");
        third.pushSync(rc -> kernel.launch(stream(rc), new long[] {16}, leftOver, 1f, 1f, 16), CL0, List.of(), List.of(v),
                FnProperty.NORMAL, 0, "stale-kernel");
        EngineException failed = assertThrows(EngineException.class, () -> third.waitForAll(WAIT));
        assertTrue(String.valueOf(failed.getCause()).contains("was closed"), String.valueOf(failed.getCause()));
        ByteBuffer host = again.allocateHost(64);
        VarHandle w = third.newVariable("stale2");
        third.pushSync(rc -> again.requirePrimitive(Memcpy.class).deviceToHost(rc.stream(), leftOver, 0, host), CL0,
                List.of(), List.of(w), FnProperty.COPY_FROM_DEVICE, 0, "stale-copy");
        failed = assertThrows(EngineException.class, () -> third.waitForAll(WAIT));
        assertTrue(String.valueOf(failed.getCause()).contains("earlier opening of opencl:0"),
                String.valueOf(failed.getCause()));
    }

    @Test
    void closingWaitsForTheCallbacksOfWorkInFlightAndClosesStreamsLeftOpen() {
        OpenClDevice d = (OpenClDevice) Devices.acquire(CL0);
        int callbacks = 64;
        AtomicInteger ran = new AtomicInteger();
        OpenClStream s = d.createStream(StreamKind.COMPUTE); // left open: the device's close closes it
        OpenClBuffer x = d.allocate(4L * 4096);
        OpenClKernel slow = d.kernel(KERNELS, "slow");
        for (int i = 0; i < callbacks; i++) {
            slow.launch(s, new long[] {4096}, x, 200);
            s.onComplete(ran::incrementAndGet);
        }
        Devices.release(CL0); // the only holder: closes the device while the kernels run
        assertTrue(d.isClosed());
        assertEquals(callbacks, ran.get(), "every completion callback ran before the close returned");
        assertEquals(0, d.liveEvents(), "every cl_event released");
        IllegalStateException e = assertThrows(IllegalStateException.class, s::record);
        assertTrue(e.getMessage().contains("was closed"), e.getMessage());
        s.close(); // idempotent
        x.close();
    }

    @Test
    void keepOpenKeepsTheDeviceAfterTheLastEngine() {
        System.setProperty(Devices.KEEP_OPEN_PROPERTY, "true");
        OpenClDevice d;
        try {
            Engine e = engine();
            d = deviceOf(e);
            e.close();
            assertFalse(d.isClosed(), "kept open by -D" + Devices.KEEP_OPEN_PROPERTY + "=true");
            Engine next = engine();
            assertSame(d, deviceOf(next));
            System.setProperty(Devices.KEEP_OPEN_PROPERTY, "false");
            next.close();
        } finally {
            System.clearProperty(Devices.KEEP_OPEN_PROPERTY);
        }
        assertTrue(d.isClosed(), "closed by the last engine once the property is false");
    }

    @Test
    void manyCloseAndReopenCyclesWithCallbacksInFlightAndLateFrees() {
        List<OpenClBuffer> fromClosedDevices = new ArrayList<>();
        OpenClDevice previous = null;
        for (int c = 0; c < CYCLES; c++) {
            Engine e = engine();
            OpenClDevice d = deviceOf(e);
            assertNotSame(previous, d, "cycle " + c + ": a fresh device");
            work(e, d, 4, 512);
            // Left allocated, and with work and callbacks still in flight, when the engine closes.
            OpenClBuffer left = d.allocate(4L * 4096);
            fromClosedDevices.add(left);
            VarHandle v = e.newVariable("tail");
            OpenClKernel slow = d.kernel(KERNELS, "slow");
            e.pushSync(rc -> slow.launch(stream(rc), new long[] {4096}, left, 500), CL0, List.of(), List.of(v),
                    FnProperty.NORMAL, 0, "tail");
            e.close();
            engines.remove(e);
            assertTrue(d.isClosed(), "cycle " + c);
            assertEquals(0, d.liveEvents(), "cycle " + c + ": every cl_event released");
            if (c % 10 == 9) {
                // Buffers of closed devices freed late, after other contexts came and went.
                fromClosedDevices.forEach(OpenClBuffer::close);
                fromClosedDevices.forEach(b -> assertThrows(IllegalStateException.class, b::mem));
                fromClosedDevices.clear();
                System.gc();
            }
            previous = d;
        }
        LOG.info("{} close/reopen cycles of {}", CYCLES, CL0);
    }

    @Test
    void enginesOpenedAndClosedFromSeveralThreadsNeverUseAClosedDevice() throws Exception {
        int threads = 4;
        int cycles = LONG ? 60 : 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger done = new AtomicInteger();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int c = 0; c < cycles; c++) {
                        try (Engine e = Engine.create("perdevice", EngineConfig.of(Map.of("depengine.hangDoctorMs", "0")))) {
                            OpenClDevice d = deviceOf(e);
                            assertFalse(d.isClosed(), "an engine got a closed device");
                            work(e, d, 2, 128);
                            assertFalse(d.isClosed(), "the device was closed under an engine using it");
                        }
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * cycles, done.get());
    }
}
