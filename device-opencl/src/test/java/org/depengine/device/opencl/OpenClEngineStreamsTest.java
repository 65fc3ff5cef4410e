package org.depengine.device.opencl;

import static org.jocl.CL.CL_COMPLETE;
import static org.jocl.CL.clCreateUserEvent;
import static org.jocl.CL.clEnqueueBarrierWithWaitList;
import static org.jocl.CL.clReleaseEvent;
import static org.jocl.CL.clSetUserEventStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Context;
import org.depengine.api.Engine;
import org.depengine.api.EngineDiagnostics;
import org.depengine.api.FnProperty;
import org.depengine.api.RunContext;
import org.depengine.api.VarHandle;
import org.depengine.api.device.Devices;
import org.depengine.api.listen.OpInfo;
import org.depengine.api.listen.OpListener;
import org.depengine.api.spi.EngineConfig;
import org.jocl.cl_event;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.depengine.testkit.Requirements;

/**
 * The per-device engine's device paths on a real OpenCL device: ops released at launch, successors on
 * the same stream started behind a running producer, device-side waits between streams, host
 * deferral for CPU consumers, and a bounded event pool. Ops that must stay running are held on the
 * device by an OpenCL user event the test completes, so every ordering claim is checked without timing.
 */
class OpenClEngineStreamsTest {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClEngineStreamsTest.class);
    private static final Context CL0 = Context.of("opencl", 0);
    private static final long WAIT_S = 60;
    private static final String KERNELS = """
            __kernel void affine(__global float* x, float a, float b, int n) {
                int i = get_global_id(0);
                if (i < n) x[i] = x[i] * a + b;
            }
            __kernel void plus(__global const float* x, __global float* y, int n) {
                int i = get_global_id(0);
                if (i < n) y[i] = y[i] + x[i];
            }
            """;

    private OpenClDevice device;
    private Engine engine;
    private final Timeline timeline = new Timeline();
    private final List<cl_event> userEvents = new ArrayList<>();
    private final java.util.Set<cl_event> opened = new java.util.HashSet<>();

    /** Start and finish times of ops by name, from the engine's listener. */
    private static final class Timeline implements OpListener {
        final Map<String, Long> started = new ConcurrentHashMap<>();
        final Map<String, Long> finished = new ConcurrentHashMap<>();
        final Map<String, Long> launched = new ConcurrentHashMap<>();

        @Override
        public void started(OpInfo op, long nanos) {
            started.put(op.name(), nanos);
        }

        @Override
        public void launched(OpInfo op, long nanos) {
            launched.put(op.name(), nanos);
        }

        @Override
        public void finished(OpInfo op, long nanos) {
            finished.put(op.name(), nanos);
        }
    }

    @BeforeEach
    void open() {
        var a = Devices.provider("opencl").probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL runtime (CI installs PoCL)");
        device = (OpenClDevice) Devices.acquire(CL0); // held until the user events are released
    }

    private void start(int computeWorkers) {
        engine = Engine.create("perdevice", EngineConfig.of(Map.of("depengine.device.workers", String.valueOf(computeWorkers),
                "depengine.hangDoctorMs", "0")));
        engine.addListener(timeline);
    }

    @AfterEach
    void close() {
        for (cl_event e : userEvents) {
            if (!opened.contains(e)) {
                clSetUserEventStatus(e, CL_COMPLETE); // never leave a queue blocked, even when a test failed
            }
        }
        if (engine != null) {
            engine.close();
        }
        for (cl_event e : userEvents) {
            clReleaseEvent(e);
        }
        if (device != null) {
            Devices.release(CL0);
        }
    }

    private void open(cl_event gate) {
        opened.add(gate);
        clSetUserEventStatus(gate, CL_COMPLETE);
    }

    private cl_event gate() {
        cl_event e = clCreateUserEvent(device.clContext(), null);
        userEvents.add(e);
        return e;
    }

    private static OpenClStream stream(RunContext rc) {
        return (OpenClStream) rc.stream();
    }

    /** An op on opencl:0 that holds its stream until {@code gate} is completed, then adds b to every element. */
    private void pushGated(String name, cl_event gate, OpenClBuffer buf, int n, float b, List<VarHandle> reads,
                           List<VarHandle> writes, FnProperty prop) {
        OpenClKernel affine = device.kernel(KERNELS, "affine");
        engine.pushSync(rc -> {
            OpenClStream s = stream(rc);
            if (gate != null) {
                clEnqueueBarrierWithWaitList(s.queue(), 1, new cl_event[] {gate}, null);
            }
            if (buf != null) {
                affine.launch(s, new long[] {n}, buf, 1f, b, n);
            }
        }, CL0, reads, writes, prop, 0, name);
    }

    @Test
    void aSuccessorOnTheSameStreamStartsWhileItsProducerIsStillRunning() throws Exception {
        start(1); // one compute worker: one compute stream
        int n = 1024;
        try (OpenClBuffer buf = device.allocate(4L * n)) {
            VarHandle x = engine.newVariable("x");
            ByteBuffer host = device.allocateHost(4 * n);
            engine.pushSync(rc -> stream(rc).write(buf, 0, host), CL0, List.of(), List.of(x), FnProperty.COPY_TO_DEVICE, 0, "upload");
            cl_event gate = gate();
            pushGated("k", gate, buf, n, 1f, List.of(), List.of(x), FnProperty.NORMAL);
            CountDownLatch next = new CountDownLatch(1);
            OpenClKernel affine = device.kernel(KERNELS, "affine");
            engine.pushSync(rc -> {
                affine.launch(stream(rc), new long[] {n}, buf, 2f, 0f, n);
                next.countDown();
            }, CL0, List.of(), List.of(x), FnProperty.NORMAL, 0, "k+1");
            ByteBuffer out = device.allocateHost(4 * n);
            engine.pushSync(rc -> stream(rc).read(buf, 0, out), CL0, List.of(x), List.of(), FnProperty.COPY_FROM_DEVICE, 0, "download");

            assertTrue(next.await(WAIT_S, TimeUnit.SECONDS), "op k+1 was not launched while op k waited on the device");
            EngineDiagnostics d = engine.diagnostics();
            assertFalse(timeline.finished.containsKey("k"), "op k is held on the device by the gate");
            assertTrue(d.ops().stream().anyMatch(o -> o.name().equals("k") && o.state() == EngineDiagnostics.OpState.ON_DEVICE),
                    d.report());
            LOG.info("while op k is held on the device:\n{}", d.report());

            open(gate);
            engine.waitForAll(Duration.ofSeconds(WAIT_S));
            for (int i = 0; i < n; i++) {
                assertEquals(2f, out.getFloat(4 * i), "element " + i); // (0 + 1) * 2
            }
            long kDone = timeline.finished.get("k");
            long next1Start = timeline.started.get("k+1");
            assertTrue(next1Start < kDone, "k+1 started before k was done");
            EngineDiagnostics after = engine.diagnostics();
            assertTrue(after.counter("sameStreamStarts") >= 1, after.counters().toString());
            LOG.info("launched k+1 {} µs before k was done; counters {}", (kDone - next1Start) / 1000, after.counters());
        }
    }

    @Test
    void readersOnTwoStreamsOfTheDeviceWaitOnTheDeviceAndTheHostNeverBlocks() throws Exception {
        start(2);
        int n = 4096;
        try (OpenClBuffer buf = device.allocate(4L * n); OpenClBuffer other = device.allocate(4L * n)) {
            VarHandle x = engine.newVariable("x");
            VarHandle y = engine.newVariable("y");
            VarHandle out = engine.newVariable("out");
            ByteBuffer zeros = device.allocateHost(4 * n);
            engine.pushSync(rc -> {
                stream(rc).write(buf, 0, zeros);
                stream(rc).write(other, 0, zeros);
            }, CL0, List.of(), List.of(x, y), FnProperty.COPY_TO_DEVICE, 0, "upload");
            cl_event gate = gate();
            pushGated("writer", gate, buf, n, 5f, List.of(), List.of(x), FnProperty.NORMAL);
            // Reader 1 on a compute stream, reader 2 on the device-to-host stream: both behind the writer.
            OpenClKernel plus = device.kernel(KERNELS, "plus");
            CountDownLatch launched = new CountDownLatch(2);
            engine.pushSync(rc -> {
                plus.launch(stream(rc), new long[] {n}, buf, other, n);
                launched.countDown();
            }, CL0, List.of(x), List.of(y), FnProperty.NORMAL, 0, "reader-compute");
            ByteBuffer host = device.allocateHost(4 * n);
            engine.pushSync(rc -> {
                stream(rc).read(buf, 0, host);
                launched.countDown();
            }, CL0, List.of(x), List.of(out), FnProperty.COPY_FROM_DEVICE, 0, "reader-d2h");
            float[] seen = new float[2];
            engine.pushSync(rc -> {
                seen[0] = host.getFloat(0);
                seen[1] = host.getFloat(4 * (n - 1));
            }, Context.cpu(), List.of(out), List.of(), FnProperty.NORMAL, 0, "cpu-consumer");

            assertTrue(launched.await(WAIT_S, TimeUnit.SECONDS), "the readers were not launched while the writer ran");
            assertFalse(timeline.finished.containsKey("writer"));
            assertFalse(timeline.started.containsKey("cpu-consumer"), "a CPU consumer waits for the device work");
            long deviceWaits = engine.diagnostics().counter("deviceWaits");
            assertTrue(deviceWaits >= 1, "the d2h reader waits for the compute writer on the device: " + deviceWaits);

            open(gate);
            engine.waitForAll(Duration.ofSeconds(WAIT_S));
            assertEquals(5f, seen[0]);
            assertEquals(5f, seen[1]);
            ByteBuffer yHost = device.allocateHost(4 * n);
            engine.pushSync(rc -> stream(rc).read(other, 0, yHost), CL0, List.of(y), List.of(), FnProperty.COPY_FROM_DEVICE, 0, "check");
            engine.waitForAll(Duration.ofSeconds(WAIT_S));
            assertEquals(5f, yHost.getFloat(0));
            EngineDiagnostics d = engine.diagnostics();
            assertTrue(d.counter("hostDeferrals") >= 1, "the CPU consumer was deferred on the host: " + d.counters());
            LOG.info("two streams reading one device buffer: counters {}", d.counters());
        }
    }

    @Test
    void aChainAcrossCopyComputeAndCopyStreamsIsExactOverManyBatches() {
        start(2);
        int n = 1000;
        int batches = 200;
        {
            OpenClKernel affine = device.kernel(KERNELS, "affine");
            List<ByteBuffer> outs = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                VarHandle dev = engine.newVariable("dev" + b);
                VarHandle res = engine.newVariable("res" + b);
                ByteBuffer in = device.allocateHost(4 * n);
                for (int i = 0; i < n; i++) {
                    in.putFloat(4 * i, b * 1000 + i);
                }
                ByteBuffer out = device.allocateHost(4 * n);
                outs.add(out);
                // Each batch has its own device buffer, freed by deleteVariable once its last user is done.
                OpenClBuffer mine = device.allocate(4L * n);
                engine.pushSync(rc -> stream(rc).write(mine, 0, in), CL0, List.of(), List.of(dev), FnProperty.COPY_TO_DEVICE, 0, "h2d" + b);
                engine.pushSync(rc -> affine.launch(stream(rc), new long[] {n}, mine, 3f, 1f, n), CL0, List.of(), List.of(dev),
                        FnProperty.NORMAL, 0, "compute" + b);
                engine.pushSync(rc -> stream(rc).read(mine, 0, out), CL0, List.of(dev), List.of(res), FnProperty.COPY_FROM_DEVICE, 0, "d2h" + b);
                engine.deleteVariable(rc -> mine.close(), CL0, dev);
            }
            engine.waitForAll(Duration.ofSeconds(WAIT_S));
            for (int b = 0; b < batches; b++) {
                for (int i = 0; i < n; i++) {
                    assertEquals((b * 1000 + i) * 3f + 1f, outs.get(b).getFloat(4 * i), "batch " + b + " element " + i);
                }
            }
            EngineDiagnostics d = engine.diagnostics();
            assertTrue(d.counter("launchedEarly") >= 3L * batches, d.counters().toString());
            assertTrue(d.counter("deviceWaits") >= 1, "copy and compute streams synchronise on the device: " + d.counters());
            LOG.info("{} batches h2d -> compute -> d2h: counters {}", batches, d.counters());
        }
    }

    @Test
    void theEventPoolDoesNotGrowOverAHundredThousandOps() {
        start(2);
        VarHandle[] vars = new VarHandle[8];
        for (int i = 0; i < vars.length; i++) {
            vars[i] = engine.newVariable("v" + i);
        }
        AtomicLong ran = new AtomicLong();
        long maxLive = 0;
        int ops = 100_000;
        FnProperty[] props = {FnProperty.NORMAL, FnProperty.COPY_TO_DEVICE, FnProperty.COPY_FROM_DEVICE};
        for (int i = 0; i < ops; i++) {
            VarHandle w = vars[i % vars.length];
            VarHandle r = vars[(i + 3) % vars.length];
            engine.pushSync(rc -> ran.incrementAndGet(), CL0, List.of(r), List.of(w), props[i % 3], 0, null);
            if (i % 10_000 == 9_999) {
                engine.waitForAll(Duration.ofSeconds(WAIT_S));
                maxLive = Math.max(maxLive, device.liveEvents());
            }
        }
        engine.waitForAll(Duration.ofSeconds(WAIT_S));
        assertEquals(ops, ran.get());
        EngineDiagnostics d = engine.diagnostics();
        assertEquals(ops, d.counter("launchedEarly"));
        assertTrue(maxLive <= 64, "live cl_events after each 10,000 ops stay bounded: max " + maxLive);
        LOG.info("{} device ops on 3 streams: max live cl_events at checkpoints {}, counters {}", ops, maxLive, d.counters());
    }
}
