package org.depengine.api.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.depengine.api.Context;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link AbstractDeviceProvider} (probe once, the disabled switch, lazy thread-safe opening, closing),
 * the strict switch, the two stream policies and {@link Devices}' ownership rule.
 */
@Isolated
class DeviceProviderBaseTest {
    private static final String SWITCH = DeviceProvider.disabledProperty(CountingDeviceProvider.TYPE);

    @AfterEach
    void clear() {
        System.clearProperty(SWITCH);
    }

    @Test
    void probesOnceOpensEachDeviceOnceAndClosesWhatItOpened() throws Exception {
        int detects = CountingDeviceProvider.DETECTS.get();
        int opens = CountingDeviceProvider.OPENS.get();
        int closes = CountingDeviceProvider.CLOSES.get();
        CountingDeviceProvider p = new CountingDeviceProvider();
        assertSame(p.probe(), p.probe());
        assertEquals(2, p.deviceCount());
        assertEquals(detects + 1, CountingDeviceProvider.DETECTS.get(), "probed once");
        // Eight threads race for device 1: one open, one instance.
        Set<Device> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                seen.add(p.device(1));
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(1, seen.size());
        assertEquals(opens + 1, CountingDeviceProvider.OPENS.get());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.device(2));
        assertTrue(e.getMessage().contains("ids 0..1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.device(-1));
        Device before = p.device(1);
        p.close();
        assertEquals(closes + 1, CountingDeviceProvider.CLOSES.get(), "the one opened device is closed");
        p.close();
        assertEquals(closes + 1, CountingDeviceProvider.CLOSES.get(), "idempotent");
        assertNotSame(before, p.device(1), "a device asked for after close is opened afresh");
    }

    @Test
    void theSwitchDisablesBeforeDetectingAndTheAnswerIsCached() {
        int detects = CountingDeviceProvider.DETECTS.get();
        System.setProperty(SWITCH, " True ");
        CountingDeviceProvider p = new CountingDeviceProvider();
        Availability a = p.probe();
        assertFalse(a.available());
        assertEquals("disabled by -D" + SWITCH + "=true", a.reason());
        assertEquals(0, p.deviceCount());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.device(0));
        assertTrue(e.getMessage().contains("disabled"), e.getMessage());
        assertEquals(detects, CountingDeviceProvider.DETECTS.get(), "a disabled type is never probed");
        System.clearProperty(SWITCH);
        assertFalse(p.probe().available(), "cached");
    }

    @Test
    void devicesHonoursTheSwitchForEveryProvider() {
        System.setProperty(SWITCH, "true");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Devices.acquire(Context.of(CountingDeviceProvider.TYPE, 0)));
        assertTrue(e.getMessage().contains("disabled by -D" + SWITCH), e.getMessage());
        assertFalse(Devices.availability(CountingDeviceProvider.TYPE).available());
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "1", "on", ""})
    void anInvalidSwitchIsAnErrorNamingTheProperty(String value) {
        System.setProperty(SWITCH, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CountingDeviceProvider().probe());
        assertEquals("system property " + SWITCH + "='" + value + "' is invalid: expected true or false", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Devices.availability(CountingDeviceProvider.TYPE));
    }

    @Test
    void theLastHolderToReleaseATypeClosesItsDevicesOnceAndTheNextOpensThemAgain() {
        Context ctx = Context.of(CountingDeviceProvider.TYPE, 0);
        int closes = CountingDeviceProvider.CLOSES.get();
        Device first = Devices.acquire(ctx);
        assertSame(first, Devices.acquire(ctx), "two engines share the device");
        Devices.release(ctx);
        assertEquals(closes, CountingDeviceProvider.CLOSES.get(), "one engine still holds it");
        assertFalse(((CountingDeviceProvider.CountingDevice) first).closed);
        Devices.release(ctx);
        assertEquals(closes + 1, CountingDeviceProvider.CLOSES.get(), "closed with the last engine");
        assertTrue(((CountingDeviceProvider.CountingDevice) first).closed);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Devices.release(ctx));
        assertTrue(e.getMessage().contains("released more often than acquired"), e.getMessage());

        int opens = CountingDeviceProvider.OPENS.get();
        Device again = Devices.acquire(ctx);
        assertNotSame(first, again, "reopened for the next engine");
        assertEquals(opens + 1, CountingDeviceProvider.OPENS.get());
        Devices.release(ctx);
        assertEquals(closes + 2, CountingDeviceProvider.CLOSES.get());
        assertEquals(0, CountingDeviceProvider.DOUBLE_CLOSES.get(), "no device closed twice");
    }

    @Test
    void aDeviceTakenWithDevicesDeviceKeepsItsTypeOpen() {
        Context ctx = Context.of(CountingDeviceProvider.ForPinning.TYPE, 0);
        Device d = Devices.acquire(ctx);
        assertSame(d, Devices.device(ctx), "the engine's device");
        Devices.release(ctx);
        assertEquals(0, CountingDeviceProvider.ForPinning.CLOSES.get(), "pinned by Devices.device");
        assertSame(d, Devices.acquire(ctx));
        Devices.release(ctx);
        assertEquals(0, CountingDeviceProvider.ForPinning.CLOSES.get());
    }

    @Test
    void keepOpenKeepsDevicesAfterTheLastEngineAndAnInvalidValueIsNamed() {
        Context ctx = Context.of(CountingDeviceProvider.TYPE, 1);
        int closes = CountingDeviceProvider.CLOSES.get();
        System.setProperty(Devices.KEEP_OPEN_PROPERTY, "true");
        try {
            Device d = Devices.acquire(ctx);
            Devices.release(ctx);
            assertEquals(closes, CountingDeviceProvider.CLOSES.get(), "kept open");
            assertSame(d, Devices.acquire(ctx));
            System.setProperty(Devices.KEEP_OPEN_PROPERTY, "maybe");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Devices.acquire(ctx));
            assertEquals("system property " + Devices.KEEP_OPEN_PROPERTY + "='maybe' is invalid: expected true or false",
                    e.getMessage());
            System.setProperty(Devices.KEEP_OPEN_PROPERTY, "false");
            Devices.release(ctx);
            assertEquals(closes + 1, CountingDeviceProvider.CLOSES.get(), "closed once the property is false");
        } finally {
            System.clearProperty(Devices.KEEP_OPEN_PROPERTY);
        }
    }

    @Test
    void concurrentHoldersNeverSeeAClosedDeviceAndEachOpenIsClosedOnce() throws Exception {
        Context ctx = Context.of(CountingDeviceProvider.TYPE, 0);
        int opens = CountingDeviceProvider.OPENS.get();
        int closes = CountingDeviceProvider.CLOSES.get();
        int threads = 8;
        int rounds = 2_000;
        AtomicInteger sawClosed = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int r = 0; r < rounds; r++) {
                    CountingDeviceProvider.CountingDevice d = (CountingDeviceProvider.CountingDevice) Devices.acquire(ctx);
                    if (d.closed) {
                        sawClosed.incrementAndGet();
                    }
                    Thread.yield(); // let other holders release meanwhile
                    if (d.closed) {
                        sawClosed.incrementAndGet();
                    }
                    Devices.release(ctx);
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(0, sawClosed.get(), "a holder saw its device closed");
        int opened = CountingDeviceProvider.OPENS.get() - opens;
        assertTrue(opened >= 1, "opened at least once");
        assertEquals(opened, CountingDeviceProvider.CLOSES.get() - closes, "every device opened was closed once");
        assertEquals(0, CountingDeviceProvider.DOUBLE_CLOSES.get(), "no device closed twice");
    }

    @Test
    void theTwoPoliciesSayWhenAnOpIsDone() {
        Device d = new SynchronousDevice(Context.of("p", 0), "p") { };
        Stream s = d.createStream(StreamKind.COMPUTE);
        assertSame(StreamPolicy.SYNCHRONOUS, d.policy(StreamKind.HOST_TO_DEVICE));
        assertFalse(d.supportsStreamWait());
        assertTrue(StreamPolicy.SYNCHRONOUS.doneOnReturn());
        assertFalse(StreamPolicy.ON_COMPLETION.doneOnReturn());
        assertSame(SynchronousStream.DONE, s.record());
        AtomicInteger ran = new AtomicInteger();
        StreamPolicy.SYNCHRONOUS.whenDone(s, ran::incrementAndGet);
        assertEquals(1, ran.get());
        // ON_COMPLETION hands "done" to the stream's completion callback.
        List<Runnable> callbacks = new ArrayList<>();
        Stream async = new Stream() {
            @Override
            public Device device() {
                return d;
            }

            @Override
            public StreamKind kind() {
                return StreamKind.COMPUTE;
            }

            @Override
            public void bindToCurrentThread() {
            }

            @Override
            public Event record() {
                return SynchronousStream.DONE;
            }

            @Override
            public void waitFor(Event event) {
            }

            @Override
            public void onComplete(Runnable callback) {
                callbacks.add(callback);
            }

            @Override
            public void synchronize() {
            }

            @Override
            public Throwable takeAsyncError() {
                return null;
            }

            @Override
            public void close() {
            }
        };
        Device asyncDevice = new AsynchronousDevice(Context.of("q", 1), "q") {
            @Override
            public Stream createStream(StreamKind kind) {
                return async;
            }
        };
        assertSame(StreamPolicy.ON_COMPLETION, asyncDevice.policy(StreamKind.DEVICE_TO_HOST));
        assertTrue(asyncDevice.supportsStreamWait());
        assertEquals("q:1 (q)", asyncDevice.toString());
        asyncDevice.policy(StreamKind.COMPUTE).whenDone(asyncDevice.createStream(StreamKind.COMPUTE),
                ran::incrementAndGet);
        assertEquals(1, ran.get(), "not done on return");
        assertEquals(1, callbacks.size());
        callbacks.get(0).run();
        assertEquals(2, ran.get(), "done when the callback fires");
    }
}
