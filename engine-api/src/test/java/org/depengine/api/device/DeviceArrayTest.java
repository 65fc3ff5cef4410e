package org.depengine.api.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import org.depengine.api.Context;
import org.depengine.api.VarHandle;
import org.junit.jupiter.api.Test;

class DeviceArrayTest {
    private static final Device DEVICE = (Device) Proxy.newProxyInstance(Device.class.getClassLoader(),
            new Class<?>[] {Device.class}, (p, m, a) -> {
                if (m.getName().equals("context")) {
                    return Context.cpu(1);
                }
                throw new UnsupportedOperationException(m.getName());
            });

    private static DeviceBuffer buffer(long bytes) {
        return new DeviceBuffer() {
            @Override
            public Device device() {
                return DEVICE;
            }

            @Override
            public long size() {
                return bytes;
            }

            @Override
            public void close() {
            }
        };
    }

    private static final VarHandle VAR = new VarHandle() {
        @Override
        public String name() {
            return "w";
        }

        @Override
        public long version() {
            return 0;
        }
    };

    @Test
    void theWholeBufferOrARangeOfIt() {
        DeviceArray whole = new DeviceArray(buffer(40), VAR);
        assertEquals(0, whole.offset());
        assertEquals(10, whole.length());
        assertEquals(40, whole.byteLength());
        assertEquals(Context.cpu(1), whole.context());
        DeviceArray part = new DeviceArray(buffer(40), VAR, 4, 6);
        assertEquals(16, part.offsetBytes());
        assertEquals(24, part.byteLength());
        assertEquals("w[4+6] on cpu:1", part.toString());
        assertEquals(0, new DeviceArray(buffer(40), VAR, 10, 0).length(), "an empty range at the end fits");
    }

    @Test
    void rangesThatDoNotFitAndNullsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DeviceArray(buffer(40), VAR, 5, 6));
        assertTrue(e.getMessage().contains("5..11") && e.getMessage().contains("40 bytes"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DeviceArray(buffer(40), VAR, -1, 2));
        assertThrows(IllegalArgumentException.class, () -> new DeviceArray(buffer(40), VAR, 0, -2));
        assertThrows(IllegalArgumentException.class, () -> new DeviceArray(buffer(40), VAR, Long.MAX_VALUE, 1));
        assertThrows(IllegalArgumentException.class, () -> new DeviceArray(buffer(41), VAR));
        assertThrows(NullPointerException.class, () -> new DeviceArray(null, VAR));
        assertThrows(NullPointerException.class, () -> new DeviceArray(buffer(4), null, 0, 1));
    }
}
