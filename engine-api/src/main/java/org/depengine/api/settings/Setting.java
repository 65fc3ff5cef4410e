package org.depengine.api.settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One setting this project reads: its key, what values it takes, its default and what it means. Every
 * module declares its settings as constants of this type and lists them in its {@link SettingsCatalog},
 * so that one parser reads every value, every error has one form, an unknown key is reported, and the
 * settings reference is generated from the declarations.
 *
 * <p>A value is parsed with its surrounding blanks removed. An invalid value is refused with an
 * {@link IllegalArgumentException} whose message has one form, naming the setting, where the value came
 * from, the value and what was expected:
 * <pre>{@code system property depengine.pooled.workers='many' is invalid: expected a whole number in [1, 4096]}</pre>
 *
 * <p>A key may hold one placeholder segment in angle brackets, as in {@code depengine.device.<type>.disabled}:
 * it then stands for every key with any one dot-free segment there ({@link #matches}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the type of the parsed value
 */
public final class Setting<T> {
    /**
     * Turns a stripped text into a value.
     *
     * @param <T> the value's type
     */
    @FunctionalInterface
    public interface Parser<T> {
        /**
         * The value {@code text} stands for.
         *
         * @param text the value, without surrounding blanks
         * @return the value, never null
         * @throws IllegalArgumentException if {@code text} is not a valid value; its message, if any, is
         *     appended to the setting's error as the detail
         */
        T parse(String text);
    }

    private final String key;
    private final String expected;
    private final T defaultValue;
    private final String defaultText;
    private final String description;
    private final Parser<T> parser;

    private Setting(String key, String expected, T defaultValue, String defaultText, String description,
            Parser<T> parser) {
        this.key = requireKey(key);
        this.expected = requireText(expected, "expected");
        this.defaultValue = defaultValue;
        this.defaultText = requireText(defaultText, "defaultText");
        this.description = requireText(description, "description");
        this.parser = Objects.requireNonNull(parser, "parser");
    }

    /**
     * A setting of any type.
     *
     * @param <T> the value's type
     * @param key the full key, e.g. {@code "depengine.pooled.workers"}
     * @param expected what a valid value is, completing "expected ...", e.g. {@code "a host:port address"}
     * @param defaultValue the value when the setting is absent (null: none)
     * @param defaultText the default as the reference shows it, e.g. {@code "the number of cores"}
     * @param description what the setting does, one or two sentences
     * @param parser turns a stripped text into a value
     * @return the setting
     * @throws NullPointerException if an argument but {@code defaultValue} is null
     * @throws IllegalArgumentException if the key does not start with {@code depengine.}, or a text is blank
     */
    public static <T> Setting<T> of(String key, String expected, T defaultValue, String defaultText,
            String description, Parser<T> parser) {
        return new Setting<>(key, expected, defaultValue, defaultText, description, parser);
    }

    /**
     * A whole number in {@code [min, max]}.
     *
     * @param key the full key
     * @param defaultValue the value when absent
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @param description what the setting does
     * @return the setting
     */
    public static Setting<Integer> ofInt(String key, int defaultValue, int min, int max, String description) {
        return ofInt(key, defaultValue, Integer.toString(defaultValue), min, max, description);
    }

    /**
     * A whole number in {@code [min, max]} whose default is computed (the number of cores, say) and
     * shown as {@code defaultText}.
     *
     * @param key the full key
     * @param defaultValue the value when absent
     * @param defaultText the default as the reference shows it
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @param description what the setting does
     * @return the setting
     */
    public static Setting<Integer> ofInt(String key, int defaultValue, String defaultText, int min, int max,
            String description) {
        checkRange(min, max);
        String expected = "a whole number in [" + min + ", " + max + "]";
        return of(key, expected, defaultValue, defaultText, description, t -> (int) whole(t, min, max));
    }

    /**
     * A whole number in {@code [min, max]}, as a long.
     *
     * @param key the full key
     * @param defaultValue the value when absent
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @param description what the setting does
     * @return the setting
     */
    public static Setting<Long> ofLong(String key, long defaultValue, long min, long max, String description) {
        checkRange(min, max);
        String expected = "a whole number in [" + min + ", " + max + "]";
        return of(key, expected, defaultValue, Long.toString(defaultValue), description, t -> whole(t, min, max));
    }

    /**
     * {@code true} or {@code false}, in any case.
     *
     * @param key the full key
     * @param defaultValue the value when absent
     * @param description what the setting does
     * @return the setting
     */
    public static Setting<Boolean> ofBoolean(String key, boolean defaultValue, String description) {
        return of(key, "true or false", defaultValue, Boolean.toString(defaultValue), description, t -> {
            if (t.equalsIgnoreCase("true")) {
                return Boolean.TRUE;
            }
            if (t.equalsIgnoreCase("false")) {
                return Boolean.FALSE;
            }
            throw new IllegalArgumentException();
        });
    }

    /**
     * A duration in {@code [min, max]}: a whole number of milliseconds ({@code 1500}), or a whole number
     * with a unit, {@code ms}, {@code s}, {@code m} or {@code h} ({@code 1500ms}, {@code 30s}, {@code 5m}).
     * Keys of durations end in {@code Ms}, the unit of a bare number.
     *
     * @param key the full key
     * @param defaultValue the value when absent
     * @param min the shortest accepted
     * @param max the longest accepted
     * @param description what the setting does
     * @return the setting
     */
    public static Setting<Duration> ofMillis(String key, Duration defaultValue, Duration min, Duration max,
            String description) {
        if (min.compareTo(max) > 0 || min.isNegative()) {
            throw new IllegalArgumentException("bad range [" + min + ", " + max + "]");
        }
        String expected = "a duration in [" + millisText(min) + ", " + millisText(max)
                + "]: whole milliseconds, or a whole number with ms, s, m or h";
        return of(key, expected, defaultValue, millisText(defaultValue), description, t -> {
            Duration d = duration(t);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException();
            }
            return d;
        });
    }

    /**
     * One of an enum's constants, named in any case; the reference lists them in lower case.
     *
     * @param <E> the enum
     * @param key the full key
     * @param type the enum's class
     * @param defaultValue the value when absent
     * @param description what the setting does
     * @return the setting
     */
    public static <E extends Enum<E>> Setting<E> ofChoice(String key, Class<E> type, E defaultValue,
            String description) {
        E[] constants = type.getEnumConstants();
        List<String> names = new ArrayList<>();
        for (E e : constants) {
            names.add(e.name().toLowerCase(Locale.ROOT));
        }
        String expected = "one of " + String.join(", ", names);
        String dflt = defaultValue == null ? "none" : defaultValue.name().toLowerCase(Locale.ROOT);
        return of(key, expected, defaultValue, dflt, description, t -> Arrays.stream(constants)
                .filter(e -> e.name().equalsIgnoreCase(t)).findFirst().orElseThrow(IllegalArgumentException::new));
    }

    /**
     * A text; a blank one is refused.
     *
     * @param key the full key
     * @param defaultValue the value when absent (null: none)
     * @param description what the setting does
     * @return the setting
     */
    public static Setting<String> ofText(String key, String defaultValue, String description) {
        return of(key, "a non-blank text", defaultValue, defaultValue == null ? "none" : defaultValue, description,
                t -> {
                    if (t.isEmpty()) {
                        throw new IllegalArgumentException();
                    }
                    return t;
                });
    }

    /**
     * A comma-separated list, each element stripped, blank elements dropped, each checked by
     * {@code element}; the default is empty.
     *
     * @param <E> an element's type
     * @param key the full key
     * @param expectedElement what one element is, e.g. {@code "a host:port address"}
     * @param element turns one stripped element into a value, or throws {@link IllegalArgumentException}
     *     whose message names the element
     * @param description what the setting does
     * @return the setting
     */
    public static <E> Setting<List<E>> ofList(String key, String expectedElement, Function<String, E> element,
            String description) {
        return of(key, "a comma-separated list, each " + expectedElement, List.of(), "empty", description, t -> {
            List<E> out = new ArrayList<>();
            for (String part : t.split(",")) {
                if (!part.isBlank()) {
                    out.add(Objects.requireNonNull(element.apply(part.strip()), "element"));
                }
            }
            return List.copyOf(out);
        });
    }

    /**
     * The full key, e.g. {@code depengine.pooled.workers}.
     *
     * @return the key
     */
    public String key() {
        return key;
    }

    /**
     * What a valid value is, as errors and the reference say it.
     *
     * @return the expectation, e.g. {@code "a whole number in [1, 4096]"}
     */
    public String expected() {
        return expected;
    }

    /**
     * The value when the setting is absent, or null when it has none.
     *
     * @return the default
     */
    public T defaultValue() {
        return defaultValue;
    }

    /**
     * The default as the reference shows it.
     *
     * @return the default's text
     */
    public String defaultText() {
        return defaultText;
    }

    /**
     * What the setting does.
     *
     * @return the description
     */
    public String description() {
        return description;
    }

    /**
     * Whether {@code candidate} is this setting's key, or one of its keys where the key has a placeholder.
     *
     * @param candidate a key
     * @return whether it names this setting
     */
    public boolean matches(String candidate) {
        int open = key.indexOf('<');
        if (open < 0) {
            return key.equals(candidate);
        }
        String prefix = key.substring(0, open);
        String suffix = key.substring(key.indexOf('>', open) + 1);
        if (!candidate.startsWith(prefix) || !candidate.endsWith(suffix)
                || candidate.length() <= prefix.length() + suffix.length()) {
            return false;
        }
        String segment = candidate.substring(prefix.length(), candidate.length() - suffix.length());
        return segment.indexOf('.') < 0 && !segment.isBlank();
    }

    /**
     * Parses a value.
     *
     * @param raw the value as given
     * @param where the setting as the error should name it, with where the value came from, e.g.
     *     {@code "system property depengine.pooled.workers"} ({@link Settings#describe})
     * @return the value
     * @throws IllegalArgumentException in the one form of the class comment, if {@code raw} is invalid
     */
    public T parse(String raw, String where) {
        Objects.requireNonNull(raw, "raw");
        try {
            return Objects.requireNonNull(parser.parse(raw.strip()), "parsed value");
        } catch (IllegalArgumentException e) {
            String detail = e.getMessage() == null || e instanceof NumberFormatException ? "" : " (" + e.getMessage() + ")";
            throw new IllegalArgumentException(where + "='" + raw + "' is invalid: expected " + expected + detail, e);
        }
    }

    @Override
    public String toString() {
        return key + " (" + expected + "; default " + defaultText + ")";
    }

    private static long whole(String t, long min, long max) {
        long v = Long.parseLong(t);
        if (v < min || v > max) {
            throw new IllegalArgumentException();
        }
        return v;
    }

    private static Duration duration(String t) {
        int i = 0;
        while (i < t.length() && Character.isDigit(t.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException();
        }
        long n = Long.parseLong(t.substring(0, i));
        String unit = t.substring(i).strip().toLowerCase(Locale.ROOT);
        try {
            switch (unit) {
                case "":
                case "ms":
                    return Duration.ofMillis(n);
                case "s":
                    return Duration.ofSeconds(n);
                case "m":
                    return Duration.ofMinutes(n);
                case "h":
                    return Duration.ofHours(n);
                default:
                    throw new IllegalArgumentException();
            }
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(); // beyond any range a setting accepts
        }
    }

    private static String millisText(Duration d) {
        return d.toMillis() + " ms";
    }

    private static void checkRange(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("bad range [" + min + ", " + max + "]");
        }
    }

    private static String requireKey(String key) {
        Objects.requireNonNull(key, "key");
        if (!key.startsWith("depengine.") || key.length() == "depengine.".length() || !key.strip().equals(key)) {
            throw new IllegalArgumentException("a setting's key starts with 'depengine.' and has no blanks: '" + key + "'");
        }
        return key;
    }

    private static String requireText(String text, String what) {
        Objects.requireNonNull(text, what);
        if (text.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        return text;
    }
}
