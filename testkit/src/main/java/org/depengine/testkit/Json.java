package org.depengine.testkit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON for tests, read by Jackson's streaming parser (strict: one value and nothing after it, no
 * duplicate keys, no comments or NaN literals) into plain values: objects as insertion-ordered maps,
 * arrays as lists, every number as a {@code Double} (as JSON and the trace viewers have them),
 * strings, booleans and null. Tests use it to check that files the project writes (traces, reports)
 * are valid JSON and to read them back. The streaming parser, not a data-binding mapper: it starts
 * in a fraction of the time, which matters to tests that read a file while it is being rewritten.
 * Thread-safe.
 */
public final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private Json() {
    }

    /** Parses the whole text; throws {@link IllegalArgumentException}, saying where, on anything that is not JSON. */
    public static Object parse(String text) {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new IllegalArgumentException("not JSON: no value in the text");
            }
            Object v = value(p, first);
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("not JSON: more after the value at "
                        + p.currentTokenLocation().offsetDescription());
            }
            return v;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage() + " at "
                    + e.getLocation().offsetDescription(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a String source does no I/O
        }
    }

    /** {@code o} as a JSON object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> obj(Object o) {
        return (Map<String, Object>) o;
    }

    /** {@code o} as a JSON array. */
    @SuppressWarnings("unchecked")
    public static List<Object> arr(Object o) {
        return (List<Object>) o;
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (String key = p.nextFieldName(); key != null; key = p.nextFieldName()) {
                    m.put(key, value(p, p.nextToken()));
                }
                return m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    l.add(value(p, e));
                }
                return l;
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                return p.getDoubleValue();
            }
            case VALUE_TRUE -> {
                return Boolean.TRUE;
            }
            case VALUE_FALSE -> {
                return Boolean.FALSE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IllegalArgumentException("not JSON: unexpected " + t + " at "
                    + p.currentTokenLocation().offsetDescription());
        }
    }
}
