package org.depengine.api.device.primitive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.DeviceBuffer;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.SynchronousDevice;
import org.junit.jupiter.api.Test;

/** The device-neutral parts of the primitive API: lookup by interface, the missing-primitive error, the checks. */
class PrimitiveApiTest {
    /** A device with no primitives of its own (the interface's defaults). */
    private static class Bare extends SynchronousDevice {
        Bare(Context ctx) {
            super(ctx, "bare test device");
        }
    }

    private record Buf(Device device, long size) implements DeviceBuffer {
        @Override
        public void close() {
        }
    }

    /** One object offering two primitives; counts the calls that reach its kernels. */
    private static final class FillAndReduce implements Fill, Reduce {
        private final Device device;
        int kernelCalls;

        FillAndReduce(Device device) {
            this.device = device;
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public void enqueueFill(Stream stream, DeviceBuffer dst, long offset, long count, float value) {
            kernelCalls++;
        }

        @Override
        public void enqueueRowSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
            kernelCalls++;
        }

        @Override
        public void enqueueColumnSums(Stream stream, int rows, int cols, DeviceBuffer x, DeviceBuffer out) {
            kernelCalls++;
        }
    }

    @Test
    void theInterfacesCheckBeforeTheKernelRunsAndSkipEmptyWork() {
        Device d = new Bare(Context.of("bare", 0));
        Device other = new Bare(Context.of("bare", 1));
        FillAndReduce p = new FillAndReduce(d);
        Stream stream = d.createStream(StreamKind.COMPUTE);
        DeviceBuffer mine = new Buf(d, 40);
        DeviceBuffer theirs = new Buf(other, 40);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> p.fill(stream, theirs, 0, 1, 1f));
        assertTrue(e.getMessage().contains("'dst' belongs to bare:1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.fill(stream, mine, 5, 6, 1f));
        e = assertThrows(IllegalArgumentException.class, () -> p.rowSums(stream, 2, 5, mine, mine));
        assertTrue(e.getMessage().contains("different buffers"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> p.columnSums(other.createStream(StreamKind.COMPUTE), 1, 1, mine, new Buf(d, 4)));
        assertEquals(0, p.kernelCalls, "no bad call reaches the kernel");
        p.fill(stream, mine, 10, 0, 1f);
        p.columnSums(stream, 3, 0, mine, new Buf(d, 4));
        assertEquals(0, p.kernelCalls, "calls without work to do do not reach the kernel");
        p.fill(stream, mine, 0, 10, 1f);
        p.rowSums(stream, 2, 0, mine, new Buf(d, 8));
        assertEquals(2, p.kernelCalls);
    }

    @Test
    void aDeviceOffersNothingByDefaultAndSaysSoWhenAPrimitiveIsRequired() {
        Device d = new Bare(Context.of("bare", 2));
        assertEquals(Optional.empty(), d.primitive(Matmul.class));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> d.requirePrimitive(SoftmaxCrossEntropy.class));
        assertTrue(e.getMessage().contains("bare:2") && e.getMessage().contains("SoftmaxCrossEntropy"), e.getMessage());
        assertThrows(NullPointerException.class, () -> d.primitive(null));
    }

    @Test
    void aPrimitiveSetFindsEachInterfaceOnce() {
        FillAndReduce both = new FillAndReduce(new Bare(Context.of("bare", 0)));
        PrimitiveSet set = new PrimitiveSet(both);
        assertSame(both, set.find(Fill.class).orElseThrow());
        assertSame(both, set.find(Reduce.class).orElseThrow());
        assertTrue(set.find(Matmul.class).isEmpty());
        assertTrue(set.find(Matmul.class).isEmpty(), "the empty answer is cached and stays empty");
        assertThrows(NullPointerException.class, () -> new PrimitiveSet(both, null));
    }

    @Test
    void checksNameTheArgumentAndTheNumbers() {
        Device d = new Bare(Context.of("bare", 0));
        Device other = new Bare(Context.of("bare", 1));
        DeviceBuffer b = new Buf(d, 40);
        PrimitiveChecks.elements(b, "x", 0, 10);
        PrimitiveChecks.elements(b, "x", 10, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PrimitiveChecks.elements(b, "x", 4, 7));
        assertTrue(e.getMessage().contains("'x' holds 10 elements") && e.getMessage().contains("uses 7 from element 4"),
                e.getMessage());
        // A huge count must not overflow into a pass.
        assertThrows(IllegalArgumentException.class, () -> PrimitiveChecks.elements(b, "x", 1, Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> PrimitiveChecks.bytes(b, "x", Long.MAX_VALUE, 1));
        e = assertThrows(IllegalArgumentException.class, () -> PrimitiveChecks.elements(b, "y", -1, 1));
        assertTrue(e.getMessage().contains("y offset must be >= 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PrimitiveChecks.buffer(other, b, "w"));
        assertTrue(e.getMessage().contains("'w' belongs to bare:0") && e.getMessage().contains("runs on bare:1"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> PrimitiveChecks.host(ByteBuffer.allocate(4), "src"));
        assertTrue(e.getMessage().contains("direct"), e.getMessage());
        PrimitiveChecks.disjoint(b, 0, b, 8, 8);
        assertThrows(IllegalArgumentException.class, () -> PrimitiveChecks.disjoint(b, 0, b, 7, 8));
        PrimitiveChecks.disjoint(b, 0, new Buf(d, 40), 0, 8);
        assertEquals(12, PrimitiveChecks.matrix("x", 3, 4));
        assertThrows(IllegalArgumentException.class, () -> PrimitiveChecks.matrix("x", 3, -4));
    }
}
