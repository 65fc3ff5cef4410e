package org.depengine.device.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.depengine.api.device.StreamKind;
import org.depengine.device.common.LogDevice.LogBuffer;
import org.depengine.device.common.LogDevice.LogStream;
import org.junit.jupiter.api.Test;

/** {@link NativeDevice}'s lifecycle, on {@link LogDevice}: a backend of native calls only. */
class NativeDeviceTest {
    private static final Duration LONG = Duration.ofMinutes(1);
    private static final Duration SHORT = Duration.ofMillis(20);

    @Test
    void closeReleasesWhatIsStillOpenStreamsFirstThenBuffersThenTheContextOnce() {
        LogDevice d = new LogDevice(LONG);
        LogStream s1 = d.createStream(StreamKind.COMPUTE);
        LogStream s2 = d.createStream(StreamKind.HOST_TO_DEVICE);
        LogBuffer b1 = d.allocate(64);
        LogBuffer b2 = d.allocate(128);
        s1.close();
        s1.close();
        b1.close();
        b1.close();
        d.log.clear();

        d.close();
        d.close();

        assertEquals(List.of("release queue 2", "free mem 2", "release context"), d.log,
                "only what the user had not closed, in the skeleton's order, once");
        assertTrue(d.isClosed());
        s2.close();
        b2.close();
        assertEquals(3, d.log.size(), "closing them again after the device calls nothing native");
    }

    @Test
    void aClosedDeviceRefusesEverythingNamingItselfAndWhatToDo() {
        LogDevice d = new LogDevice(LONG);
        LogStream s = d.createStream(StreamKind.COMPUTE);
        LogBuffer b = d.allocate(8);
        d.close();

        for (Runnable use : List.<Runnable>of(() -> d.createStream(StreamKind.COMPUTE), () -> d.allocate(8),
                () -> d.kernel("k"), s::synchronize, b::mem)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, use::run);
            assertTrue(e.getMessage().contains("log:0") && e.getMessage().contains("was closed")
                    && e.getMessage().contains("Devices.acquire"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalStateException.class, () -> d.kernel("k")).getMessage()
                .startsWith("cannot build kernel 'k': device log:0 (log device) was closed"));
        assertThrows(IllegalArgumentException.class, () -> new LogDevice(LONG).allocate(0));
    }

    @Test
    void aFailingStepIsLoggedAndTheRestOfTheCloseStillRuns() {
        LogDevice d = new LogDevice(LONG);
        d.createStream(StreamKind.COMPUTE);
        d.createStream(StreamKind.COMPUTE);
        d.allocate(8);
        d.allocate(8);
        d.log.clear();
        d.failing = "release queue 1";

        d.close();

        assertTrue(d.log.containsAll(List.of("release queue 2", "free mem 1", "free mem 2")), d.log.toString());
        assertEquals("release context", d.log.get(d.log.size() - 1));
    }

    @Test
    void aNativeCallbackStillDueKeepsBuffersAndContextAllocated() {
        LogDevice d = new LogDevice(SHORT);
        d.createStream(StreamKind.COMPUTE);
        d.allocate(8);
        d.nativeCallbacks().begin(); // set on the driver, never reported
        d.log.clear();

        d.close();

        assertEquals(List.of("release queue 1"), d.log, "nothing freed under a callback that may still come");
    }

    @Test
    void aCompletionStillRunningHoldsTheFreeingBackOnlyIfCompletionsTouchNativeObjects() throws Exception {
        for (boolean touchNative : new boolean[] {true, false}) {
            LogDevice d = new LogDevice(SHORT);
            d.completionsTouchNative = touchNative;
            LogStream s = d.createStream(StreamKind.COMPUTE);
            d.allocate(8);
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            s.onComplete(() -> {
                running.countDown();
                await(finish);
            });
            running.await();
            d.log.clear();
            try {
                d.close();
            } finally {
                finish.countDown();
            }
            List<String> expected = touchNative ? List.of("release queue 1")
                    : List.of("release queue 1", "free mem 1", "release context");
            assertEquals(expected, d.log, "completions touch native objects: " + touchNative);
        }
    }

    @Test
    void whatIsMadeWhileTheDeviceClosesIsEitherRefusedOrFreedByTheClose() throws Exception {
        LogDevice d = new LogDevice(LONG);
        ExecutorService makers = Executors.newFixedThreadPool(2);
        CountDownLatch started = new CountDownLatch(2);
        try {
            List<Future<List<LogBuffer>>> made = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                made.add(makers.submit(() -> {
                    List<LogBuffer> mine = new ArrayList<>();
                    started.countDown();
                    while (true) {
                        try {
                            mine.add(d.allocate(8));
                        } catch (IllegalStateException refused) {
                            return mine;
                        }
                    }
                }));
            }
            started.await();
            d.close();
            int buffers = 0;
            for (Future<List<LogBuffer>> f : made) {
                for (LogBuffer b : f.get(1, TimeUnit.MINUTES)) {
                    buffers++;
                    assertThrows(IllegalStateException.class, b::mem, "a buffer made before the close is freed by it");
                }
            }
            long freed = d.log.stream().filter(c -> c.startsWith("free mem")).count();
            assertEquals(buffers, freed, "each buffer made was freed once: " + buffers);
            assertFalse(d.log.stream().skip(d.log.indexOf("release context")).anyMatch(c -> c.startsWith("alloc")),
                    "no native allocation after the context was released");
        } finally {
            makers.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
