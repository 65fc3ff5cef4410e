package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.same;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import org.depengine.api.Context;
import org.depengine.api.EngineException;
import org.depengine.api.device.Event;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.StreamPolicy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * Streams, events, the event pool and the stream policy of the CUDA device, on a mocked driver. JCuda
 * handles compare equal by native pointer (all 0 here), so verifications use {@code same(...)}.
 */
class CudaStreamTest {
    private CudaDriver driver;
    private CUcontext primary;
    private CudaDevice device;
    private final List<CUevent> eventsMade = new ArrayList<>();
    /** The answer of queryEvent for every event. */
    private final AtomicBoolean eventsComplete = new AtomicBoolean(true);

    @BeforeEach
    void setUp() {
        driver = mock(CudaDriver.class);
        primary = new CUcontext();
        when(driver.deviceName(0)).thenReturn("Mock GPU");
        when(driver.retainPrimaryContext(0)).thenReturn(primary);
        when(driver.createStream()).thenAnswer(inv -> new CUstream());
        when(driver.createEvent()).thenAnswer(inv -> {
            CUevent e = new CUevent();
            eventsMade.add(e);
            return e;
        });
        when(driver.queryEvent(any())).thenAnswer(inv -> eventsComplete.get());
        device = new CudaDevice(Context.of("cuda", 0), driver, 0);
    }

    @Test
    void bindMakesThePrimaryContextCurrent() {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        s.bindToCurrentThread();
        verify(driver, atLeastOnce()).setCurrent(primary);
        assertSame(device, s.device());
        assertEquals(StreamKind.COMPUTE, s.kind());
        assertTrue(device.supportsStreamWait());
    }

    @Test
    void policyIsAsynchronousAndWhenDoneRunsFromTheHostFunctionNotTheCaller() throws InterruptedException {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        StreamPolicy policy = device.policy(StreamKind.COMPUTE);
        assertFalse(policy.doneOnReturn());

        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        policy.whenDone(s, () -> {
            ranOn.set(Thread.currentThread());
            done.countDown();
        });
        ArgumentCaptor<Runnable> hostFn = ArgumentCaptor.forClass(Runnable.class);
        verify(driver).launchHostFunc(any(CUstream.class), hostFn.capture());
        assertFalse(done.await(100, TimeUnit.MILLISECONDS), "done ran before the stream reached the host function");

        // The driver's thread runs the host function once the work is done.
        Thread driverThread = new Thread(hostFn.getValue(), "mock-cuda-driver-thread");
        driverThread.start();
        driverThread.join();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertNotSame(Thread.currentThread(), ranOn.get());
        assertNotSame(driverThread, ranOn.get(), "callbacks are handed off the driver's thread (they may call CUDA)");
        assertTrue(ranOn.get().getName().startsWith("depengine-cuda-0-callbacks"), ranOn.get().getName());
        assertNull(s.takeAsyncError());
    }

    @Test
    void callbackExceptionsBecomeAsyncErrors() throws InterruptedException {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        RuntimeException boom = new IllegalStateException("boom (expected by the test)");
        CountDownLatch after = new CountDownLatch(1);
        s.onComplete(() -> {
            throw boom;
        });
        s.onComplete(after::countDown);
        ArgumentCaptor<Runnable> hostFn = ArgumentCaptor.forClass(Runnable.class);
        verify(driver, times(2)).launchHostFunc(any(CUstream.class), hostFn.capture());
        hostFn.getAllValues().forEach(Runnable::run);
        assertTrue(after.await(10, TimeUnit.SECONDS));
        assertSame(boom, s.takeAsyncError());
        assertNull(s.takeAsyncError());
    }

    @Test
    void awaitedEventsGoBackToThePool() {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        // 10,000, not more: Mockito keeps every invocation (the 100,000-cycle evidence is the OpenCL test).
        for (int i = 0; i < 10_000; i++) {
            Event e = s.record();
            e.await();
            assertTrue(e.isDone());
        }
        assertEquals(1, device.eventsCreated(), "one CUevent served 10,000 records");
        assertEquals(1, device.liveEvents());
        assertEquals(1, device.idleEvents());
        verify(driver, times(10_000)).recordEvent(any(), any());
        verify(driver, never()).destroyEvent(any());
    }

    @Test
    void eventsNobodyWaitsForAreRecycledByLaterRecords() {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        for (int i = 0; i < 10_000; i++) {
            s.record();
        }
        assertTrue(device.eventsCreated() <= 2, "created " + device.eventsCreated());
        assertTrue(s.outstandingEvents() <= 1);
    }

    @Test
    void pendingEventsAreRecycledBySynchronizeAndThePoolIsBounded() {
        eventsComplete.set(false);
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        List<Event> events = new ArrayList<>();
        int n = CudaDevice.EVENT_POOL_LIMIT + 500;
        for (int i = 0; i < n; i++) {
            events.add(s.record());
        }
        assertEquals(n, device.eventsCreated(), "all pending at once: each needs its own CUevent");
        assertFalse(events.get(0).isDone());
        s.synchronize();
        verify(driver).synchronizeStream(any());
        assertTrue(events.stream().allMatch(Event::isDone), "after synchronize every event is done");
        assertEquals(CudaDevice.EVENT_POOL_LIMIT, device.idleEvents(), "the pool keeps at most its limit");
        verify(driver, times(500)).destroyEvent(any());
        assertEquals(CudaDevice.EVENT_POOL_LIMIT, device.liveEvents());
    }

    @Test
    void waitForIsDeviceSideForCudaEventsAndSkippedWhenDone() {
        eventsComplete.set(false);
        CudaStream producer = device.createStream(StreamKind.HOST_TO_DEVICE);
        CudaStream consumer = device.createStream(StreamKind.COMPUTE);
        Event e = producer.record();
        consumer.waitFor(e);
        verify(driver).streamWaitEvent(same(consumer.cuStream()), same(eventsMade.get(0)));
        verify(driver, never()).synchronizeEvent(any());

        eventsComplete.set(true);
        assertTrue(e.isDone());
        consumer.waitFor(e);
        verify(driver, times(1)).streamWaitEvent(any(), any());
    }

    @Test
    void waitForAForeignEventBlocksOnTheHost() {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        AtomicBoolean awaited = new AtomicBoolean();
        s.waitFor(new Event() {
            @Override
            public boolean isDone() {
                return awaited.get();
            }

            @Override
            public void await() {
                awaited.set(true);
            }
        });
        assertTrue(awaited.get());
        verify(driver, never()).streamWaitEvent(any(), any());
    }

    @Test
    void aRecycledEventIsNeverWaitedForAgain() {
        CudaStream a = device.createStream(StreamKind.COMPUTE);
        CudaStream b = device.createStream(StreamKind.COMPUTE);
        Event first = a.record();
        first.await(); // done: its CUevent goes back to the pool
        Event second = a.record(); // reuses that CUevent for other work
        assertEquals(1, device.eventsCreated());
        eventsComplete.set(false);
        assertFalse(second.isDone());
        b.waitFor(first);
        verify(driver, never()).streamWaitEvent(any(), any());
    }

    @Test
    void errorsOfAnEventAreReportedByAwait() {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        Event e = s.record();
        doThrow(new CudaException("CUDA_ERROR_LAUNCH_FAILED")).when(driver).synchronizeEvent(any());
        EngineException ex = assertThrows(EngineException.class, e::await);
        assertTrue(ex.getMessage().contains("CUDA_ERROR_LAUNCH_FAILED"), ex.getMessage());
        assertTrue(e.isDone());
        assertThrows(EngineException.class, e::await, "the failure stays");
    }

    @Test
    void aFailedRecordReturnsTheEventToThePool() {
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        doThrow(new CudaException("CUDA_ERROR_ILLEGAL_ADDRESS")).when(driver).recordEvent(any(), any());
        EngineException ex = assertThrows(EngineException.class, s::record);
        assertTrue(ex.getMessage().contains("CUDA_ERROR_ILLEGAL_ADDRESS"));
        assertEquals(1, device.idleEvents());
    }

    @Test
    void cublasHandlePerStreamBoundToItAndDestroyedOnClose() {
        when(driver.cublasCreate()).thenAnswer(inv -> new cublasHandle());
        CudaStream a = device.createStream(StreamKind.COMPUTE);
        CudaStream b = device.createStream(StreamKind.COMPUTE);
        cublasHandle ha = a.cublas();
        assertSame(ha, a.cublas());
        cublasHandle hb = b.cublas();
        assertNotSame(ha, hb);
        verify(driver).cublasSetStream(same(ha), same(a.cuStream()));
        verify(driver).cublasSetStream(same(hb), same(b.cuStream()));
        CUstream raw = a.cuStream();
        a.close();
        a.close();
        verify(driver).cublasDestroy(same(ha));
        verify(driver, times(1)).destroyStream(same(raw));
        assertThrows(IllegalStateException.class, a::record);
        assertThrows(IllegalStateException.class, a::cublas);
    }

    @Test
    void buffersAndCopies() {
        CUdeviceptr ptr = new CUdeviceptr();
        when(driver.memAlloc(64)).thenReturn(ptr);
        CudaStream s = device.createStream(StreamKind.HOST_TO_DEVICE);
        CudaBuffer buf = device.allocate(64);
        assertEquals(64, buf.size());
        ByteBuffer host = ByteBuffer.allocateDirect(16);
        s.write(buf, 48, host);
        verify(driver).copyHtoDAsync(same(ptr), eq(48L), same(host), any());
        s.read(buf, 0, host);
        verify(driver).copyDtoHAsync(same(host), same(ptr), eq(0L), any());
        assertThrows(IllegalArgumentException.class, () -> s.write(buf, 56, host), "out of range");
        assertThrows(IllegalArgumentException.class, () -> s.write(buf, 0, ByteBuffer.allocate(8)), "heap buffer");
        buf.close();
        buf.close();
        verify(driver, times(1)).memFree(same(ptr));
        assertThrows(IllegalStateException.class, buf::ptr);
        assertThrows(IllegalArgumentException.class, () -> device.allocate(0));
    }

    @Test
    void hostBuffersArePinned() {
        Pointer host = new Pointer();
        when(driver.memHostAlloc(anyLong())).thenReturn(host);
        when(driver.hostBuffer(any(), anyLong())).thenAnswer(inv -> ByteBuffer.allocateDirect((int) (long) inv.getArgument(1)));
        ByteBuffer b = device.allocateHost(4096);
        assertEquals(4096, b.capacity());
        assertTrue(b.isDirect());
        verify(driver).memHostAlloc(4096);
        assertEquals(4096, device.pinnedHostBytes());
    }

    @Test
    void closingTheDeviceClosesItsStreamsFreesItsBuffersAndReleasesTheContextOnce() {
        CUdeviceptr ptr = new CUdeviceptr();
        when(driver.memAlloc(64)).thenReturn(ptr);
        CudaStream s = device.createStream(StreamKind.COMPUTE);
        CUstream raw = s.cuStream();
        CudaBuffer buf = device.allocate(64);
        CudaStream closedBefore = device.createStream(StreamKind.COMPUTE);
        CUstream rawClosed = closedBefore.cuStream();
        closedBefore.close();
        device.close();
        device.close();
        assertTrue(device.isClosed());
        verify(driver, times(1)).destroyStream(same(raw));
        verify(driver, times(1)).destroyStream(same(rawClosed));
        verify(driver, times(1)).memFree(same(ptr));
        verify(driver, times(1)).releasePrimaryContext(0);
        IllegalStateException e = assertThrows(IllegalStateException.class, buf::ptr);
        assertTrue(e.getMessage().contains("cuda:0") && e.getMessage().contains("was closed")
                && e.getMessage().contains("depengine.device.keepOpen"), e.getMessage());
        buf.close();
        verify(driver, times(1)).memFree(same(ptr));
        e = assertThrows(IllegalStateException.class, s::record);
        assertTrue(e.getMessage().contains("was closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> device.allocate(64));
        assertThrows(IllegalStateException.class, () -> device.createStream(StreamKind.COMPUTE));
        assertThrows(IllegalStateException.class, () -> device.allocateHost(64));
    }

    @Test
    void pinnedHostMemoryKeepsThePrimaryContextPastTheClose() {
        when(driver.memHostAlloc(anyLong())).thenReturn(new Pointer());
        when(driver.hostBuffer(any(), anyLong())).thenAnswer(inv -> ByteBuffer.allocateDirect((int) (long) inv.getArgument(1)));
        ByteBuffer pinned = device.allocateHost(4096);
        device.close();
        verify(driver, never()).releasePrimaryContext(0);
        assertEquals(4096, pinned.capacity()); // still usable: its context is still retained
    }
}
