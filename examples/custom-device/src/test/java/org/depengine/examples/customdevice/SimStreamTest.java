package org.depengine.examples.customdevice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The plugin's device, stream and event contract, without an engine. */
class SimStreamTest {
    private final SimDevice device = new SimDeviceProvider().device(0);
    private SimStream a;
    private SimStream b;

    @BeforeEach
    void streams() {
        a = device.createStream(StreamKind.COMPUTE);
        b = device.createStream(StreamKind.HOST_TO_DEVICE);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void foundThroughServiceLoaderLikeAnyDevice() {
        assertTrue(Devices.types().contains("sim"), Devices.types().toString());
        Device d = Devices.device(Context.of("sim", 1));
        assertEquals(Context.of("sim", 1), d.context());
        assertSame(d, Devices.device(Context.of("sim", 1)));
    }

    @Test
    void commandsRunInOrderOnTheLanesOwnThread() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            int k = i;
            a.enqueue("c" + i, () -> seen.add(k + "@" + Thread.currentThread().getName()));
        }
        a.synchronize();
        String lane = a.laneThreadName();
        assertTrue(lane.startsWith("sim0-compute#"), lane);
        assertEquals(List.of("0@" + lane, "1@" + lane, "2@" + lane, "3@" + lane, "4@" + lane), seen);
        assertEquals(5, a.commandsRun());
    }

    @Test
    void anEventIsDoneOnlyAfterTheWorkBeforeIt() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        a.enqueue("held", () -> await(gate));
        Event e = a.record();
        assertFalse(e.isDone(), "the lane has not reached the marker yet");
        gate.countDown();
        e.await();
        assertTrue(e.isDone());
    }

    @Test
    void aLaneWaitsForAnotherLanesEventWithoutBlockingTheCaller() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        a.enqueue("held", () -> await(gate));
        Event e = a.record();
        b.waitFor(e); // returns at once: the wait is on b's lane
        List<String> order = new CopyOnWriteArrayList<>();
        b.enqueue("after", () -> order.add("b ran, a's event done=" + e.isDone()));
        Event bDone = b.record();
        assertFalse(bDone.isDone());
        gate.countDown();
        bDone.await();
        assertEquals(List.of("b ran, a's event done=true"), order);
    }

    @Test
    void completionCallbacksRunOnTheLaneAfterEarlierWork() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        String[] where = new String[2];
        a.enqueue("work", () -> where[0] = "work done");
        a.onComplete(() -> {
            where[1] = Thread.currentThread().getName() + " after " + where[0];
            ran.countDown();
        });
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        assertEquals(a.laneThreadName() + " after work done", where[1]);
    }

    @Test
    void aFailingCommandIsKeptAndTheLaneGoesOn() {
        a.enqueue("bad", () -> {
            throw new ArithmeticException("boom");
        });
        int[] after = {0};
        a.enqueue("good", () -> after[0] = 1);
        a.synchronize();
        Throwable t = a.takeAsyncError();
        assertTrue(t.getMessage().contains("'bad'") && t.getCause() instanceof ArithmeticException, String.valueOf(t));
        assertNull(a.takeAsyncError(), "taking clears it");
        assertEquals(1, after[0]);
    }

    @Test
    void aClosedStreamRefusesWork() {
        a.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.enqueue("late", () -> { }));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void buffersAreZeroFilledAndSized() {
        SimBuffer buf = device.allocate(64);
        assertEquals(64, buf.size());
        assertEquals(0, buf.data().getLong(8));
        buf.close();
        assertThrows(IllegalStateException.class, buf::data);
        assertThrows(IllegalArgumentException.class, () -> device.allocate(-1));
    }

    @Test
    void badSettingsMakeTheTypeUnavailableWithAReason() {
        String old = System.getProperty(SimDeviceProvider.LATENCY_PROPERTY);
        System.setProperty(SimDeviceProvider.LATENCY_PROPERTY, "fast");
        try {
            SimDeviceProvider p = new SimDeviceProvider();
            assertFalse(p.probe().available());
            assertTrue(p.probe().reason().contains(SimDeviceProvider.LATENCY_PROPERTY), p.probe().reason());
            assertEquals(0, p.deviceCount());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.device(0));
            assertTrue(e.getMessage().contains("fast"), e.getMessage());
        } finally {
            restore(SimDeviceProvider.LATENCY_PROPERTY, old);
        }
    }

    @Test
    void theDisableSwitchIsHonoured() {
        String prop = DeviceProvider.disabledProperty("sim");
        System.setProperty(prop, "true");
        try {
            SimDeviceProvider p = new SimDeviceProvider();
            assertFalse(p.probe().available());
            assertTrue(p.probe().reason().contains(prop), p.probe().reason());
        } finally {
            System.clearProperty(prop);
        }
    }

    @Test
    void anUnknownIdNamesTheRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SimDeviceProvider().device(7));
        assertTrue(e.getMessage().contains("ids 0..1"), e.getMessage());
    }

    private static void await(CountDownLatch gate) {
        try {
            if (!gate.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void restore(String prop, String old) {
        if (old == null) {
            System.clearProperty(prop);
        } else {
            System.setProperty(prop, old);
        }
    }
}
