package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jcuda.Pointer;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.testkit.Requirements;
import org.junit.jupiter.api.Assumptions;
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
            cublasHandle handle;
            try {
                handle = s.cublas();
            } catch (CublasUnavailableException e) {
                Assumptions.abort("needs cuBLAS's libraries: " + e.getMessage());
                return;
            }
            JCublas2.cublasSaxpy(handle, n, Pointer.to(new float[] {2f}), x.ptr(), 1, y.ptr(), 1);
            s.read(y, 0, hy);
            s.synchronize();
            for (int i = 0; i < n; i++) {
                assertEquals(2f * i + 1f, hy.getFloat(4 * i), "element " + i);
            }
        }
    }

    /** The kernel that stands in for cuBLAS's sgemm, in its four transpose cases, against the host. */
    @Test
    void theFallbackSgemmKernelMatchesTheHost() {
        int m = 37;
        int n = 29;
        int k = 45;
        Random random = new Random(7);
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        float[] c0 = new float[m * n];
        for (float[] array : List.of(a, b, c0)) {
            for (int i = 0; i < array.length; i++) {
                array[i] = random.nextFloat() * 2 - 1;
            }
        }
        try (CudaStream s = device.createStream(StreamKind.COMPUTE);
                CudaBuffer da = device.allocate(4L * a.length);
                CudaBuffer db = device.allocate(4L * b.length);
                CudaBuffer dc = device.allocate(4L * c0.length)) {
            s.bindToCurrentThread();
            ByteBuffer host = device.allocateHost(4 * Math.max(a.length, Math.max(b.length, c0.length)));
            write(s, da, a, host);
            write(s, db, b, host);
            for (boolean transA : new boolean[] {false, true}) {
                for (boolean transB : new boolean[] {false, true}) {
                    write(s, dc, c0, host);
                    device.kernels().launchSgemm(s, transA, transB, m, n, k, 1.5f, da.ptr(), db.ptr(), 0.5f, dc.ptr());
                    ByteBuffer out = host.slice(0, 4 * c0.length).order(host.order());
                    s.read(dc, 0, out);
                    s.synchronize();
                    for (int i = 0; i < m; i++) {
                        for (int j = 0; j < n; j++) {
                            double sum = 0;
                            for (int p = 0; p < k; p++) {
                                // As stored: A is k x m when transposed, B is n x k.
                                sum += (double) (transA ? a[p * m + i] : a[i * k + p]) * (transB ? b[j * k + p] : b[p * n + j]);
                            }
                            double expected = 1.5 * sum + 0.5 * c0[i * n + j];
                            assertEquals(expected, out.getFloat(4 * (i * n + j)), 1e-4 * k,
                                    "transA=" + transA + " transB=" + transB + " C[" + i + "][" + j + "]");
                        }
                    }
                }
            }
        }
    }

    private static void write(CudaStream s, CudaBuffer dst, float[] values, ByteBuffer host) {
        ByteBuffer in = host.slice(0, 4 * values.length).order(host.order());
        for (int i = 0; i < values.length; i++) {
            in.putFloat(4 * i, values[i]);
        }
        s.write(dst, 0, in);
        // The host buffer is reused next: the copy must have read it.
        s.synchronize();
    }
}
