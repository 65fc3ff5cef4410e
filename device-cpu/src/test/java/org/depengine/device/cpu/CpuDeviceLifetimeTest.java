package org.depengine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.depengine.api.Context;
import org.depengine.api.device.Device;
import org.depengine.api.device.Devices;
import org.depengine.api.device.Stream;
import org.depengine.api.device.StreamKind;
import org.depengine.api.device.primitive.Memcpy;
import org.junit.jupiter.api.Test;

/**
 * CPU devices hold only Java memory: when the last holder of {@code cpu} gives it back nothing is
 * closed, so a CPU buffer made while one engine held the device stays usable with the next.
 */
class CpuDeviceLifetimeTest {
    private static final Context CPU7 = Context.cpu(7);

    @Test
    void theLastReleaseKeepsCpuDevicesAndTheirBuffers() {
        Device d = Devices.acquire(CPU7);
        CpuBuffer b = (CpuBuffer) d.allocate(16);
        Arrays.fill(b.floats(), 2.5f);
        Devices.release(CPU7); // the last holder: an OpenCL device would close here
        Device again = Devices.acquire(CPU7);
        try {
            assertSame(d, again, "the CPU device is kept");
            ByteBuffer host = again.allocateHost(16);
            Stream s = again.createStream(StreamKind.DEVICE_TO_HOST);
            again.requirePrimitive(Memcpy.class).deviceToHost(s, b, 0, host);
            s.synchronize();
            assertEquals(2.5f, host.getFloat(12), "the buffer made before is still usable");
            s.close();
        } finally {
            Devices.release(CPU7);
        }
    }
}
