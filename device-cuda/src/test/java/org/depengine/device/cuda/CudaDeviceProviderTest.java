package org.depengine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import jcuda.CudaException;
import jcuda.driver.CUcontext;
import org.depengine.api.Context;
import org.depengine.api.device.Availability;
import org.depengine.api.device.DeviceProvider;
import org.depengine.api.device.Devices;
import org.junit.jupiter.api.Test;

/** The provider's probe and device cache, against a mocked driver (no GPU needed). */
class CudaDeviceProviderTest {

    private static Supplier<CudaDriver> counting(CudaDriver driver, AtomicInteger calls) {
        return () -> {
            calls.incrementAndGet();
            return driver;
        };
    }

    @Test
    void foundThroughServiceLoader() {
        DeviceProvider p = Devices.provider("cuda");
        assertTrue(p instanceof CudaDeviceProvider, p.getClass().getName());
        assertEquals("cuda", p.type());
        assertSame(p.probe(), p.probe());
    }

    @Test
    void constructorTouchesNothing() {
        AtomicInteger calls = new AtomicInteger();
        CudaDeviceProvider p = new CudaDeviceProvider(counting(mock(CudaDriver.class), calls));
        assertEquals("cuda", p.type());
        assertEquals(0, calls.get());
    }

    @Test
    void disabledSwitchIsHonouredBeforeAnyNativeCode() {
        AtomicInteger calls = new AtomicInteger();
        CudaDeviceProvider p = new CudaDeviceProvider(counting(mock(CudaDriver.class), calls));
        System.setProperty(DeviceProvider.disabledProperty("cuda"), "true");
        Availability a;
        try {
            a = p.probe();
        } finally {
            System.clearProperty(DeviceProvider.disabledProperty("cuda"));
        }
        assertEquals(Availability.no("disabled by -Ddepengine.device.cuda.disabled=true"), a);
        assertEquals(0, calls.get(), "the driver was not even created");
        assertEquals(0, p.deviceCount());
        assertThrows(IllegalStateException.class, () -> p.device(0));
    }

    @Test
    void missingDriverLibraryIsAReasonAndIsCached() {
        CudaDriver driver = mock(CudaDriver.class);
        doThrow(new UnsatisfiedLinkError("/tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: cannot open shared "
                + "object file: No such file or directory")).when(driver).init();
        AtomicInteger calls = new AtomicInteger();
        CudaDeviceProvider p = new CudaDeviceProvider(counting(driver, calls));
        Availability a = p.probe();
        assertFalse(a.available());
        assertEquals("libcuda.so.1 not found (no NVIDIA driver installed on this machine)", a.reason());
        assertSame(a, p.probe());
        assertEquals(0, p.deviceCount());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.device(0));
        assertTrue(e.getMessage().contains("libcuda.so.1 not found"), e.getMessage());
        assertEquals(1, calls.get(), "probed once");
        verify(driver, times(1)).init();
    }

    @Test
    void otherLinkageErrorsAndMissingResourceHaveTheirOwnReasons() {
        assertEquals("JCuda native library not found: add jcuda-natives (classifier linux-x86_64) to the class or module path",
                CudaDeviceProvider.linkReason(new UnsatisfiedLinkError("Error while loading native library\n"
                        + "java.io.IOException: No resource found with name '/lib/libJCudaDriver-12.6.0-linux-x86_64.so'")));
        assertEquals("JCuda native library could not be loaded: NoClassDefFoundError: Could not initialize class "
                + "jcuda.driver.JCudaDriver",
                CudaDeviceProvider.linkReason(new NoClassDefFoundError("Could not initialize class jcuda.driver.JCudaDriver")));
    }

    @Test
    void cudaErrorsDuringInitAreReasons() {
        CudaDriver driver = mock(CudaDriver.class);
        doThrow(new CudaException("CUDA_ERROR_NO_DEVICE")).when(driver).init();
        assertEquals("no CUDA device found (cuInit returned CUDA_ERROR_NO_DEVICE)",
                new CudaDeviceProvider(() -> driver).probe().reason());

        CudaDriver old = mock(CudaDriver.class);
        doThrow(new CudaException("CUDA_ERROR_INSUFFICIENT_DRIVER")).when(old).init();
        assertTrue(new CudaDeviceProvider(() -> old).probe().reason().contains("too old"));

        CudaDriver zero = mock(CudaDriver.class);
        when(zero.deviceCount()).thenReturn(0);
        Availability a = new CudaDeviceProvider(() -> zero).probe();
        assertFalse(a.available());
        assertTrue(a.reason().startsWith("no CUDA device found"), a.reason());

        Availability broken = new CudaDeviceProvider(() -> {
            throw new IllegalStateException("factory exploded");
        }).probe();
        assertFalse(broken.available());
        assertTrue(broken.reason().contains("factory exploded"), broken.reason());
    }

    @Test
    void devicesAreOpenedOnceWithTheirPrimaryContextRetainedOnce() {
        CudaDriver driver = mock(CudaDriver.class);
        when(driver.deviceCount()).thenReturn(2);
        when(driver.deviceName(0)).thenReturn("Mock GPU 0");
        when(driver.deviceName(1)).thenReturn("Mock GPU 1");
        when(driver.retainPrimaryContext(0)).thenReturn(new CUcontext());
        when(driver.retainPrimaryContext(1)).thenReturn(new CUcontext());
        CudaDeviceProvider p = new CudaDeviceProvider(() -> driver);
        assertTrue(p.probe().available());
        assertEquals(2, p.deviceCount());
        CudaDevice d0 = p.device(0);
        assertSame(d0, p.device(0));
        assertEquals(Context.of("cuda", 0), d0.context());
        assertEquals("Mock GPU 0", d0.description());
        assertEquals("Mock GPU 1", p.device(1).description());
        verify(driver, times(1)).retainPrimaryContext(0);
        verify(driver, times(1)).retainPrimaryContext(1);
        assertThrows(IllegalArgumentException.class, () -> p.device(2));
        assertThrows(IllegalArgumentException.class, () -> p.device(-1));
        verify(driver, times(1)).init();
    }

    @Test
    void aDeviceThatCannotBeOpenedIsAnIllegalStateException() {
        CudaDriver driver = mock(CudaDriver.class);
        when(driver.deviceCount()).thenReturn(1);
        when(driver.retainPrimaryContext(0)).thenThrow(new CudaException("CUDA_ERROR_OUT_OF_MEMORY"));
        CudaDeviceProvider p = new CudaDeviceProvider(() -> driver);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.device(0));
        assertTrue(e.getMessage().contains("CUDA_ERROR_OUT_OF_MEMORY"), e.getMessage());
    }
}
