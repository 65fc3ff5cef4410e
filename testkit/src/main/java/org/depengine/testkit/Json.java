package org.depengine.testkit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON for tests, read by Jackson (strict: no trailing tokens, no duplicate keys, no comments or
 * NaN literals) into plain values: objects as insertion-ordered maps, arrays as lists, every number as
 * a {@code Double} (as JSON and the trace viewers have them), strings, booleans and null. Tests use
 * it to check that files the project writes (traces, reports) are valid JSON and to read them back.
 * Thread-safe.
 */
public final class Json {
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private Json() {
    }

    /** Parses the whole text; throws {@link IllegalArgumentException}, saying where, on anything that is not JSON. */
    public static Object parse(String text) {
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage() + " at "
                    + e.getLocation().offsetDescription(), e);
        }
        if (root == null || root.isMissingNode()) {
            throw new IllegalArgumentException("not JSON: no value in the text");
        }
        return plain(root);
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

    private static Object plain(JsonNode n) {
        switch (n.getNodeType()) {
            case OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                n.fields().forEachRemaining(e -> m.put(e.getKey(), plain(e.getValue())));
                return m;
            }
            case ARRAY -> {
                List<Object> l = new ArrayList<>(n.size());
                n.forEach(e -> l.add(plain(e)));
                return l;
            }
            case NUMBER -> {
                return n.doubleValue();
            }
            case STRING -> {
                return n.textValue();
            }
            case BOOLEAN -> {
                return n.booleanValue();
            }
            case NULL -> {
                return null;
            }
            default -> throw new IllegalArgumentException("not a JSON value: " + n.getNodeType());
        }
    }
}
