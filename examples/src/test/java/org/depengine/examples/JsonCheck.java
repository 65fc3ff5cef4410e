package org.depengine.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the tests (RFC 8259: objects, arrays, strings with escapes, numbers,
 * true/false/null; nothing after the value but blanks). Objects become maps, arrays lists, numbers
 * doubles. Malformed text is an {@link IllegalArgumentException} giving the offset.
 */
final class JsonCheck {
    private final String s;
    private int i;

    private JsonCheck(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        JsonCheck p = new JsonCheck(text);
        Object v = p.value();
        p.blanks();
        if (p.i != text.length()) {
            throw p.error("text after the value");
        }
        return v;
    }

    private Object value() {
        blanks();
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return word("true", Boolean.TRUE);
            case 'f':
                return word("false", Boolean.FALSE);
            case 'n':
                return word("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        blanks();
        if (peek('}')) {
            i++;
            return m;
        }
        while (true) {
            blanks();
            if (!peek('"')) {
                throw error("expected a member name");
            }
            String key = string();
            blanks();
            expect(':');
            m.put(key, value());
            blanks();
            if (peek(',')) {
                i++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        i++;
        blanks();
        if (peek(']')) {
            i++;
            return l;
        }
        while (true) {
            l.add(value());
            blanks();
            if (peek(',')) {
                i++;
            } else {
                expect(']');
                return l;
            }
        }
    }

    private String string() {
        StringBuilder sb = new StringBuilder();
        i++;
        while (true) {
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = i < s.length() ? s.charAt(i++) : '?';
            switch (e) {
                case '"': case '\\': case '/':
                    sb.append(e);
                    break;
                case 'b':
                    sb.append('\b');
                    break;
                case 'f':
                    sb.append('\f');
                    break;
                case 'n':
                    sb.append('\n');
                    break;
                case 'r':
                    sb.append('\r');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'u':
                    if (i + 4 > s.length()) {
                        throw error("short \\u escape");
                    }
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                    break;
                default:
                    throw error("bad escape \\" + e);
            }
        }
    }

    private Double number() {
        int start = i;
        if (peek('-')) {
            i++;
        }
        if (!digits()) {
            throw error("expected a value");
        }
        if (peek('.')) {
            i++;
            if (!digits()) {
                throw error("digits expected after '.'");
            }
        }
        if (peek('e') || peek('E')) {
            i++;
            if (peek('+') || peek('-')) {
                i++;
            }
            if (!digits()) {
                throw error("digits expected in the exponent");
            }
        }
        return Double.valueOf(s.substring(start, i));
    }

    private boolean digits() {
        int start = i;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        return i > start;
    }

    private Object word(String w, Object v) {
        if (!s.startsWith(w, i)) {
            throw error("expected " + w);
        }
        i += w.length();
        return v;
    }

    private void blanks() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }

    private boolean peek(char c) {
        return i < s.length() && s.charAt(i) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("invalid JSON at offset " + i + ": " + what);
    }
}
