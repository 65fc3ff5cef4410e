package org.depengine.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.depengine.api.device.Devices;
import org.depengine.api.device.StreamKind;
import org.depengine.api.spi.EngineConfig;
import org.junit.jupiter.api.Test;

/** The API's value types and the provider lookup errors. */
class ApiValueTest {

    @Test
    void contextsParseAndCompare() {
        assertEquals(Context.cpu(), Context.parse("cpu"));
        assertEquals(Context.cpu(0), Context.parse(" cpu:0 "));
        assertEquals(Context.of("opencl", 1), Context.parse("opencl:1"));
        assertEquals("cuda:3", Context.of("cuda", 3).toString());
        assertEquals(Context.of("cuda", 3).hashCode(), Context.parse("cuda:3").hashCode());
        assertNotEquals(Context.cpu(0), Context.cpu(1));
        assertTrue(Context.cpu(2).isCpu());
        assertFalse(Context.of("opencl", 0).isCpu());
    }

    @Test
    void badContextsSayWhatIsExpected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Context.parse("gpu:x"));
        assertTrue(e.getMessage().contains("gpu:x") && e.getMessage().contains("type:id"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Context.of("GPU", 0));
        assertTrue(e.getMessage().contains("GPU"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Context.cpu(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        assertTrue(assertThrows(NullPointerException.class, () -> Context.parse(null)).getMessage().contains("text"));
    }

    @Test
    void configValuesAreValidatedAndNamed() {
        EngineConfig c = EngineConfig.of(Map.of("depengine.x", "12", "depengine.bad", "twelve", "depengine.b", "TRUE"));
        assertEquals(12, c.getInt("depengine.x", 1, 1, 100));
        assertEquals(7, c.getInt("depengine.missing", 7, 1, 100));
        assertTrue(c.getBoolean("depengine.b", false));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.getInt("depengine.bad", 1, 1, 100));
        assertTrue(e.getMessage().contains("depengine.bad") && e.getMessage().contains("twelve"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> c.getInt("depengine.x", 1, 1, 10));
        assertTrue(e.getMessage().contains("depengine.x") && e.getMessage().contains("[1, 10]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> c.getBoolean("depengine.bad", false));
        assertTrue(e.getMessage().contains("depengine.bad"), e.getMessage());
        assertEquals("5", c.with("depengine.y", "5").get("depengine.y"));
    }

    @Test
    void twoProvidersOfOneNameAreNamedBoth() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Engine.create("dup"));
        assertTrue(e.getMessage().contains("TestProviders$DupOne") && e.getMessage().contains("TestProviders$DupTwo"), e.getMessage());
    }

    @Test
    void anUnknownEngineListsWhatWasFoundAndTheBrokenProvider() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Engine.create("nonesuch"));
        String m = e.getMessage();
        assertTrue(m.contains("'nonesuch'") && m.contains("dup") && m.contains("EngineProvider"), m);
        assertTrue(m.contains("TestProviders$Broken") && m.contains("broken on purpose"), "a provider that failed to load is named: " + m);
    }

    @Test
    void anUnknownDeviceTypeListsTheTypesFound() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Devices.provider("tpu"));
        // The only providers on this module's test path are the test types of org.depengine.api.device.
        assertTrue(e.getMessage().contains("tpu") && e.getMessage().contains("found: apitest"), e.getMessage());
    }

    @Test
    void streamKindsFollowTheProperty() {
        assertEquals(StreamKind.HOST_TO_DEVICE, StreamKind.of(FnProperty.COPY_TO_DEVICE));
        assertEquals(StreamKind.DEVICE_TO_HOST, StreamKind.of(FnProperty.COPY_FROM_DEVICE));
        assertEquals(StreamKind.COMPUTE, StreamKind.of(FnProperty.DEVICE_PRIORITIZED));
        assertTrue(FnProperty.COPY_FROM_DEVICE.isCopy());
        assertFalse(FnProperty.ASYNC.isCopy());
    }
}
