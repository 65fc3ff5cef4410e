package org.depengine.device.opencl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.jocl.CL;
import org.jocl.cl_event;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.depengine.testkit.Requirements;

/**
 * Runs on the real OpenCL platform of the machine (PoCL's CPU device in CI). Skipped, with the probe's
 * reason, only where the probe says OpenCL is unavailable.
 */
class OpenClDeviceTest {
    private static final Logger LOG = LoggerFactory.getLogger(OpenClDeviceTest.class);

    private static final String KERNELS = """
            __kernel void axpb(__global const int* a, __global const int* b, __global int* c, int n) {
                int i = get_global_id(0);
                if (i < n) c[i] = a[i] * 3 + b[i];
            }
            __kernel void fill(__global int* x, int value) {
                x[get_global_id(0)] = value;
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

    private static OpenClDeviceProvider provider;
    private static OpenClDevice device;

    @BeforeAll
    static void openDevice() {
        DeviceProvider p = Devices.provider("opencl");
        provider = assertInstanceOf(OpenClDeviceProvider.class, p);
        Availability a = provider.probe();
        Requirements.assumeDevice("opencl", a, "needs an OpenCL platform (e.g. pocl-opencl-icd)");
        device = (OpenClDevice) Devices.acquire(Context.of("opencl", 0));
    }

    @AfterAll
    static void giveBack() {
        if (device != null) {
            device = null;
            Devices.release(Context.of("opencl", 0));
        }
    }

    @Test
    void providerIsFoundThroughServiceLoaderAndListsDevices() {
        assertTrue(Devices.types().contains("opencl"), Devices.types().toString());
        assertSame(provider, Devices.provider("opencl"));
        assertEquals("opencl", provider.type());
        assertTrue(provider.deviceCount() >= 1);
        assertSame(device, provider.device(0));
        assertEquals(Context.of("opencl", 0), device.context());
        assertTrue(device.supportsStreamWait());
        assertFalse(device.description().isBlank());
        assertSame(provider.probe(), provider.probe(), "the probe's answer is cached");
        assertThrows(IllegalArgumentException.class, () -> provider.device(provider.deviceCount()));
        assertThrows(IllegalArgumentException.class, () -> Devices.device(Context.of("opencl", 99)));
        LOG.info("opencl devices: {}, opencl:0 = {}", provider.deviceCount(), device.description());
    }

    @Test
    void disabledSwitchGivesReasonWithoutTouchingNatives() {
        String prop = DeviceProvider.disabledProperty("opencl");
        OpenClDeviceProvider fresh = new OpenClDeviceProvider();
        System.setProperty(prop, "true");
        Availability a;
        try {
            a = fresh.probe();
        } finally {
            System.clearProperty(prop);
        }
        assertFalse(a.available());
        assertEquals("disabled by -Ddepengine.device.opencl.disabled=true", a.reason());
        assertEquals("unavailable: disabled by -Ddepengine.device.opencl.disabled=true", a.toString());
        assertEquals(0, fresh.deviceCount());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> fresh.device(0));
        assertTrue(e.getMessage().contains("disabled"), e.getMessage());
        assertFalse(fresh.probe().available(), "cached: clearing the switch later does not change the answer");
    }

    @Test
    void policyIsAsynchronous() {
        for (StreamKind k : StreamKind.values()) {
            StreamPolicy p = device.policy(k);
            assertFalse(p.doneOnReturn());
        }
    }

    @Test
    void copyInComputeCopyOutOnThreeStreamsWaitingOnTheDevice() {
        int n = 100_003;
        OpenClKernel axpb = device.kernel(KERNELS, "axpb");
        try (OpenClStream h2d = device.createStream(StreamKind.HOST_TO_DEVICE);
                OpenClStream compute = device.createStream(StreamKind.COMPUTE);
                OpenClStream d2h = device.createStream(StreamKind.DEVICE_TO_HOST);
                OpenClBuffer a = device.allocate(4L * n);
                OpenClBuffer b = device.allocate(4L * n);
                OpenClBuffer c = device.allocate(4L * n)) {
            ByteBuffer ha = device.allocateHost(4 * n);
            ByteBuffer hb = device.allocateHost(4 * n);
            ByteBuffer hc = device.allocateHost(4 * n);
            for (int i = 0; i < n; i++) {
                ha.putInt(4 * i, i - 50_000);
                hb.putInt(4 * i, 7 * i);
            }
            h2d.write(a, 0, ha);
            h2d.write(b, 0, hb);
            Event copiedIn = h2d.record();

            compute.waitFor(copiedIn);
            axpb.launch(compute, new long[] {n}, a, b, c, n);
            Event computed = compute.record();

            d2h.waitFor(computed);
            d2h.read(c, 0, hc);
            Event copiedOut = d2h.record();
            copiedOut.await();

            assertTrue(copiedIn.isDone() && computed.isDone() && copiedOut.isDone());
            assertEquals(0, ha.position(), "the copy does not move the host buffer's position");
            IntBuffer out = hc.asIntBuffer();
            for (int i = 0; i < n; i++) {
                int expected = (i - 50_000) * 3 + 7 * i;
                if (out.get(i) != expected) {
                    assertEquals(expected, out.get(i), "element " + i);
                }
            }
            assertEquals(null, h2d.takeAsyncError());
            assertEquals(null, compute.takeAsyncError());
            assertEquals(null, d2h.takeAsyncError());
        }
    }

    /**
     * A user event gates stream A: until it is set, nothing on A runs. Stream B waits for A's event on
     * the device: waitFor returns at once, B's later work stays pending, and once the gate opens B's read
     * sees what A wrote.
     */
    @Test
    void deviceSideWaitBetweenTwoStreams() throws InterruptedException {
        int n = 4096;
        OpenClKernel fill = device.kernel(KERNELS, "fill");
        cl_event gate = CL.clCreateUserEvent(device.clContext(), null);
        try (OpenClStream a = device.createStream(StreamKind.COMPUTE);
                OpenClStream b = device.createStream(StreamKind.DEVICE_TO_HOST);
                OpenClBuffer x = device.allocate(4L * n)) {
            ByteBuffer host = device.allocateHost(4 * n);
            // Stream A: a barrier on the closed gate, then the fill.
            CL.clEnqueueBarrierWithWaitList(a.queue(), 1, new cl_event[] {gate}, null);
            fill.launch(a, new long[] {n}, x, 42);
            Event filled = a.record();

            long t0 = System.nanoTime();
            b.waitFor(filled);
            long waitNanos = System.nanoTime() - t0;
            b.read(x, 0, host);
            Event read = b.record();

            Thread.sleep(200);
            assertFalse(filled.isDone(), "A is held by the gate");
            assertFalse(read.isDone(), "B waits for A on the device");
            assertEquals(0, host.getInt(0), "B's read has not run");
            assertTrue(waitNanos < TimeUnit.SECONDS.toNanos(1), "waitFor did not block the host: " + waitNanos + " ns");

            CL.clSetUserEventStatus(gate, CL.CL_COMPLETE);
            read.await();
            assertTrue(filled.isDone());
            for (int i = 0; i < n; i++) {
                assertEquals(42, host.getInt(4 * i), "element " + i);
            }
        } finally {
            CL.clReleaseEvent(gate);
        }
    }

    @Test
    void waitForAnEventOfAnotherKindBlocksOnTheHost() {
        AtomicBoolean awaited = new AtomicBoolean();
        Event foreign = new Event() {
            @Override
            public boolean isDone() {
                return awaited.get();
            }

            @Override
            public void await() {
                awaited.set(true);
            }
        };
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE)) {
            s.waitFor(foreign);
            assertTrue(awaited.get());
        }
    }

    /** The callback of whenDone comes after whenDone returned, and only once the slow kernel is done. */
    @Test
    void whenDoneRunsFromTheCallbackAfterTheEnqueueReturned() throws InterruptedException {
        int n = 2048;
        OpenClKernel slow = device.kernel(KERNELS, "slow");
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE);
                OpenClBuffer x = device.allocate(4L * n)) {
            ByteBuffer zeros = device.allocateHost(4 * n);
            s.write(x, 0, zeros);
            // Calibrate: one run with a known count, then scale to about half a second.
            int iters = 200_000;
            long t0 = System.nanoTime();
            slow.launch(s, new long[] {n}, x, iters);
            s.synchronize();
            long calib = Math.max(1, System.nanoTime() - t0);
            long scaled = Math.min(200_000_000L, iters * TimeUnit.MILLISECONDS.toNanos(500) / calib);
            iters = (int) Math.max(iters, scaled);

            AtomicBoolean returned = new AtomicBoolean();
            AtomicBoolean sawReturned = new AtomicBoolean();
            AtomicLong callbackThread = new AtomicLong();
            CountDownLatch done = new CountDownLatch(1);
            StreamPolicy policy = device.policy(StreamKind.COMPUTE);

            long start = System.nanoTime();
            slow.launch(s, new long[] {n}, x, iters);
            policy.whenDone(s, () -> {
                sawReturned.set(returned.get());
                callbackThread.set(Thread.currentThread().getId());
                done.countDown();
            });
            returned.set(true);
            long enqueueNanos = System.nanoTime() - start;
            assertEquals(1, done.getCount(), "done must not run before the slow kernel finished");

            assertTrue(done.await(60, TimeUnit.SECONDS), "the completion callback never ran");
            long totalNanos = System.nanoTime() - start;
            assertTrue(sawReturned.get(), "the callback ran before whenDone returned");
            assertTrue(callbackThread.get() != Thread.currentThread().getId(), "the callback ran on the caller");
            assertEquals(null, s.takeAsyncError());
            LOG.info("slow kernel ({} iterations): enqueue + whenDone returned after {} us, callback after {} ms",
                    iters, enqueueNanos / 1000, totalNanos / 1_000_000);
        }
    }

    @Test
    void exceptionInCallbackIsReportedAsAsyncError() throws InterruptedException {
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE)) {
            RuntimeException boom = new IllegalStateException("boom from a callback (expected by the test)");
            s.onComplete(() -> {
                throw boom;
            });
            // Callbacks run on driver threads in no promised order: poll until the error is kept.
            Throwable seen = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen == null && System.nanoTime() < deadline) {
                seen = s.takeAsyncError();
                if (seen == null) {
                    Thread.sleep(1);
                }
            }
            assertSame(boom, seen);
            assertEquals(null, s.takeAsyncError(), "taking clears it");
        }
    }

    /**
     * 100,000 record/await cycles leave no cl_event behind: the count of live events never exceeds one
     * and ends at zero, although 100,000 were made. Then, events that are never awaited are released by
     * later records and by synchronize; and completion hooks are reused.
     */
    @Test
    void eventsAreReleasedAndHooksPooled() throws InterruptedException {
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE)) {
            long live0 = device.liveEvents();
            long created0 = device.eventsCreated();
            long maxLive = 0;
            int cycles = 100_000;
            long t0 = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                Event e = s.record();
                maxLive = Math.max(maxLive, device.liveEvents() - live0);
                e.await();
                assertTrue(e.isDone());
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(cycles, device.eventsCreated() - created0);
            assertEquals(0, device.liveEvents() - live0, "live cl_events after the cycles");
            assertTrue(maxLive <= 1, "at most the one in flight was live, saw " + maxLive);
            // The last wrapper stays listed until the next record or synchronize; it holds no cl_event.
            assertTrue(s.outstandingEvents() <= 1, "wrappers listed: " + s.outstandingEvents());
            LOG.info("event evidence: {} record/await cycles in {} ms: cl_events created {}, live after {}, max live {}",
                    cycles, ms, device.eventsCreated() - created0, device.liveEvents() - live0, maxLive);

            // Never awaited: each record releases the completed ones before it.
            long maxUnawaited = 0;
            for (int i = 0; i < 20_000; i++) {
                s.record();
                if (i % 1000 == 999) {
                    maxUnawaited = Math.max(maxUnawaited, device.liveEvents() - live0);
                    s.synchronize();
                    assertEquals(0, device.liveEvents() - live0, "after synchronize");
                }
            }
            assertTrue(maxUnawaited <= 1000, "unawaited events are bounded by a synchronize interval: " + maxUnawaited);
            LOG.info("event evidence: 20000 un-awaited records, max live {} (sync every 1000), live after sync {}",
                    maxUnawaited, device.liveEvents() - live0);

            // Completion hooks: one in flight at a time reuses one wrapper.
            int hooks0 = device.hooksCreated();
            for (int i = 0; i < 10_000; i++) {
                CountDownLatch l = new CountDownLatch(1);
                s.onComplete(l::countDown);
                assertTrue(l.await(30, TimeUnit.SECONDS));
            }
            // A burst: at most the burst's size are made, at most HOOK_POOL_LIMIT kept.
            CountDownLatch burst = new CountDownLatch(1000);
            for (int i = 0; i < 1000; i++) {
                s.onComplete(burst::countDown);
            }
            assertTrue(burst.await(30, TimeUnit.SECONDS));
            s.synchronize();
            int made = device.hooksCreated() - hooks0;
            assertTrue(made <= 1002, "hooks made for 11,000 callbacks: " + made);
            assertTrue(device.hooks().idle() <= OpenClDevice.HOOK_POOL_LIMIT);
            // The callbacks release their markers after running; wait for the last ones to finish.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (device.liveEvents() != live0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(0, device.liveEvents() - live0, "markers of the callbacks were released");
            LOG.info("event evidence: 11000 onComplete callbacks made {} hook wrappers, pooled now {}",
                    made, device.hooks().idle());
        }
    }

    @Test
    void kernelCacheHits() {
        String src = "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }\n"
                + "__kernel void dec(__global int* x) { x[get_global_id(0)] -= 1; }\n";
        int builds0 = device.programBuilds();
        OpenClKernel inc = device.kernel(src, "inc");
        assertEquals(builds0 + 1, device.programBuilds());
        assertSame(inc, device.kernel(src, "inc"), "same source and name: the cached kernel");
        OpenClKernel dec = device.kernel(src, "dec");
        assertEquals(builds0 + 1, device.programBuilds(), "another kernel of the same source reuses the program");
        assertEquals("dec", dec.name());
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE);
                OpenClBuffer x = device.allocate(16)) {
            ByteBuffer h = device.allocateHost(16);
            s.write(x, 0, h);
            inc.launch(s, new long[] {4}, x);
            inc.launch(s, new long[] {4}, x);
            dec.launch(s, new long[] {4}, x);
            s.read(x, 0, h);
            s.synchronize();
            assertEquals(1, h.order(ByteOrder.nativeOrder()).getInt(12));
        }
    }

    @Test
    void badSourceAndMisuseGiveClearErrors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> device.kernel("__kernel void broken(__global int* x) { x[0] = undefined_name; }", "broken"));
        assertTrue(e.getMessage().contains("does not build"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> device.kernel(KERNELS, "no_such_kernel"));
        try (OpenClStream s = device.createStream(StreamKind.COMPUTE)) {
            OpenClBuffer x = device.allocate(16);
            assertThrows(IllegalArgumentException.class, () -> s.write(x, 0, ByteBuffer.allocate(16)));
            assertThrows(IllegalArgumentException.class, () -> s.write(x, 8, ByteBuffer.allocateDirect(16)));
            x.close();
            x.close();
            assertThrows(IllegalStateException.class, x::mem);
        }
        OpenClStream closed = device.createStream(StreamKind.COMPUTE);
        closed.close();
        closed.close();
        assertThrows(IllegalStateException.class, closed::record);
    }
}
