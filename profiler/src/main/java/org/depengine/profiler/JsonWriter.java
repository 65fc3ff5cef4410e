package org.depengine.profiler;

import java.io.IOException;
import java.io.Writer;

/**
 * A minimal streaming JSON writer: it places commas and colons and escapes strings, so every output
 * is valid JSON when each begin has its end. With {@code htmlSafe} it also escapes {@code <}, {@code >}
 * and {@code &}, so the text can sit inside an HTML {@code <script>} element. Not thread-safe. Not
 * part of the API.
 */
final class JsonWriter {
    private final Writer out;
    private final boolean htmlSafe;
    /** One bit per open container: whether it already holds a value (needs a comma before the next). */
    private long[] hasValue = new long[4];
    private int depth;
    private boolean afterName;

    JsonWriter(Writer out, boolean htmlSafe) {
        this.out = out;
        this.htmlSafe = htmlSafe;
    }

    JsonWriter beginObject() throws IOException {
        beforeValue();
        out.write('{');
        push();
        return this;
    }

    JsonWriter endObject() throws IOException {
        depth--;
        out.write('}');
        return this;
    }

    JsonWriter beginArray() throws IOException {
        beforeValue();
        out.write('[');
        push();
        return this;
    }

    JsonWriter endArray() throws IOException {
        depth--;
        out.write(']');
        return this;
    }

    JsonWriter name(String name) throws IOException {
        beforeValue();
        string(name);
        out.write(':');
        afterName = true;
        return this;
    }

    JsonWriter value(String s) throws IOException {
        beforeValue();
        if (s == null) {
            out.write("null");
        } else {
            string(s);
        }
        return this;
    }

    JsonWriter value(long v) throws IOException {
        beforeValue();
        out.write(Long.toString(v));
        return this;
    }

    JsonWriter value(boolean v) throws IOException {
        beforeValue();
        out.write(v ? "true" : "false");
        return this;
    }

    /** A fixed-point number with three decimals, nanos/1000: microseconds from nanoseconds, ms from µs. */
    JsonWriter thousandths(long v) throws IOException {
        beforeValue();
        out.write(thousandthsText(v));
        return this;
    }

    /** A finite double ("null" otherwise: JSON has no NaN or infinity). */
    JsonWriter value(double v) throws IOException {
        beforeValue();
        if (Double.isFinite(v)) {
            out.write(Double.toString(v));
        } else {
            out.write("null");
        }
        return this;
    }

    JsonWriter field(String name, String v) throws IOException {
        return name(name).value(v);
    }

    JsonWriter field(String name, long v) throws IOException {
        return name(name).value(v);
    }

    /** Decimal text of v / 1000 with exactly three decimals, without locale or exponent. */
    static String thousandthsText(long v) {
        StringBuilder sb = new StringBuilder(24);
        if (v < 0) {
            sb.append('-');
            v = -v; // Long.MIN_VALUE is not a time anyone records
        }
        sb.append(v / 1000).append('.');
        long frac = v % 1000;
        if (frac < 100) {
            sb.append('0');
        }
        if (frac < 10) {
            sb.append('0');
        }
        sb.append(frac);
        return sb.toString();
    }

    private void push() {
        depth++;
        if (depth / 64 >= hasValue.length) {
            hasValue = java.util.Arrays.copyOf(hasValue, hasValue.length * 2);
        }
        hasValue[depth / 64] &= ~(1L << (depth % 64));
    }

    private void beforeValue() throws IOException {
        if (afterName) {
            afterName = false;
            return;
        }
        if (depth > 0) {
            long bit = 1L << (depth % 64);
            if ((hasValue[depth / 64] & bit) != 0) {
                out.write(',');
            } else {
                hasValue[depth / 64] |= bit;
            }
        }
    }

    private void string(String s) throws IOException {
        out.write('"');
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.write("\\\"");
                    break;
                case '\\':
                    out.write("\\\\");
                    break;
                case '\n':
                    out.write("\\n");
                    break;
                case '\r':
                    out.write("\\r");
                    break;
                case '\t':
                    out.write("\\t");
                    break;
                default:
                    if (c < 0x20 || c == 0x2028 || c == 0x2029 || (htmlSafe && (c == '<' || c == '>' || c == '&'))
                            || (Character.isSurrogate(c) && !pairedSurrogate(s, i))) {
                        // controls must be escaped; U+2028/9 break JavaScript; lone surrogates are not UTF-8
                        unicode(c);
                    } else {
                        out.write(c);
                    }
            }
        }
        out.write('"');
    }

    private static boolean pairedSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    private void unicode(char c) throws IOException {
        out.write("\\u");
        String hex = Integer.toHexString(c);
        for (int k = hex.length(); k < 4; k++) {
            out.write('0');
        }
        out.write(hex);
    }
}
