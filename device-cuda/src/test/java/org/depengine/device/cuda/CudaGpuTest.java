package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jcuda.Pointer;
import jcuda.jcublas.JCublas2;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On a real GPU only: each test is skipped, with the probe's reason, everywhere else (the assumption is
 * per test so that the skips show in the reports).
 */
class CudaGpuTest {
    private CudaDevice device;

    @BeforeEach
    void open() {
        Availability a = Devices.provider("cuda").probe();
        Requirements.assumeDevice("cuda", a, "needs a CUDA GPU");
        device = (CudaDevice) Devices.device(Context.of("cuda", 0));
    }

    @Test
    void copyInAndOutOnTwoStreamsWaitingOnTheDevice() {
        int n = 1 << 20;
        try (CudaStream h2d = device.createStream(StreamKind.HOST_TO_DEVICE);
                CudaStream d2h = device.createStream(StreamKind.DEVICE_TO_HOST);
                CudaBuffer buf = device.allocate(4L * n)) {
            h2d.bindToCurrentThread();
            ByteBuffer in = device.allocateHost(4 * n);
            ByteBuffer out = device.allocateHost(4 * n);
            for (int i = 0; i < n; i++) {
                in.putInt(4 * i, i * 7 - 3);
            }
            h2d.write(buf, 0, in);
            Event written = h2d.record();
            d2h.waitFor(written);
            d2h.read(buf, 0, out);
            d2h.record().await();
            for (int i = 0; i < n; i++) {
                assertEquals(i * 7 - 3, out.getInt(4 * i), "element " + i);
            }
            assertNull(h2d.takeAsyncError());
        }
    }

    @Test
    void whenDoneCallsBackAfterTheWorkAndEventsArePooled() throws InterruptedException {
        try (CudaStream s = device.createStream(StreamKind.COMPUTE)) {
            s.bindToCurrentThread();
            CountDownLatch done = new CountDownLatch(1);
            device.policy(StreamKind.COMPUTE).whenDone(s, done::countDown);
            assertTrue(done.await(30, TimeUnit.SECONDS));
            long created = device.eventsCreated();
            for (int i = 0; i < 10_000; i++) {
                s.record().await();
            }
            assertTrue(device.eventsCreated() - created <= 1, "pooled: " + (device.eventsCreated() - created));
        }
    }

    @Test
    void cublasSaxpyOnTheStreamsHandle() {
        int n = 1000;
        try (CudaStream s = device.createStream(StreamKind.COMPUTE);
                CudaBuffer x = device.allocate(4L * n);
                CudaBuffer y = device.allocate(4L * n)) {
            s.bindToCurrentThread();
            ByteBuffer hx = device.allocateHost(4 * n);
            ByteBuffer hy = device.allocateHost(4 * n);
            for (int i = 0; i < n; i++) {
                hx.putFloat(4 * i, i);
                hy.putFloat(4 * i, 1);
            }
            s.write(x, 0, hx);
            s.write(y, 0, hy);
            JCublas2.cublasSaxpy(s.cublas(), n, Pointer.to(new float[] {2f}), x.ptr(), 1, y.ptr(), 1);
            s.read(y, 0, hy);
            s.synchronize();
            for (int i = 0; i < n; i++) {
                assertEquals(2f * i + 1f, hy.getFloat(4 * i), "element " + i);
            }
        }
    }
}
