package org.depengine.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void parsesWhatJmhWrites() {
        Object v = Json.parse(" [ {\"a\": 1.5e3, \"b\": \"x\\\"y\\u00b5\", \"c\": [true, false, null], \"d\": {}, \"e\": \"NaN\"} ] ");
        Map<?, ?> m = (Map<?, ?>) ((List<?>) v).get(0);
        assertEquals(1500.0, m.get("a"));
        assertEquals("x\"yµ", m.get("b"));
        assertEquals(java.util.Arrays.asList(true, false, null), m.get("c"));
        assertTrue(((Map<?, ?>) m.get("d")).isEmpty());
        assertEquals("NaN", m.get("e"));
        assertNull(Json.parse("null"));
        assertEquals(-2.0, Json.parse("-2"));
    }

    @Test
    void malformedInputNamesTheOffset() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\" 1}"));
        assertTrue(e.getMessage().contains("offset 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1, 2"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1] x"));
    }
}
