package org.depengine.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.depengine.testkit.Json;
import org.junit.jupiter.api.Test;

class JsonWriterTest {
    @Test
    void escapesAndNestsValidly() throws Exception {
        StringWriter sw = new StringWriter();
        JsonWriter j = new JsonWriter(sw, true);
        String nasty = "q\"b\\s/</script>&\u0000\u001f\n\t\u2028\u2029\ud83d\ude00 lone\udc00 end\ud800";
        j.beginObject().field("s", nasty).name("a").beginArray().value(1).value(-2L).value(true).value((String) null)
                .beginObject().endObject().beginArray().endArray().value(Double.NaN).value(0.5).endArray()
                .name("t").thousandths(-1_234_567).name("u").thousandths(5).endObject();
        String text = sw.toString();
        assertFalse(text.contains("</"), text);
        assertFalse(text.contains("<"), text);
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) Json.parse(text);
        assertEquals(nasty, m.get("s"));
        assertEquals(java.util.Arrays.asList(1.0, -2.0, true, null, Map.of(), List.of(), null, 0.5), m.get("a"));
        assertEquals(-1234.567, m.get("t"));
        assertEquals(0.005, m.get("u"));
        assertEquals("0.000", JsonWriter.thousandthsText(0));
        assertEquals("12.030", JsonWriter.thousandthsText(12_030));
    }
}
