package org.depengine.examples;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.depengine.api.Engine;

/**
 * The command line every example shares: {@code --engine NAME} (default: the
 * {@value Engine#ENGINE_PROPERTY} system property, else {@value Engine#DEFAULT_ENGINE}) and
 * {@code --help}, plus the options with a value that an example declares.
 */
final class Args {
    final String engine;
    final boolean help;
    private final Map<String, String> options;

    private Args(String engine, boolean help, Map<String, String> options) {
        this.engine = engine;
        this.help = help;
        this.options = options;
    }

    /**
     * Parses {@code --engine NAME}, {@code --help} and the given options, each followed by a value;
     * anything else is an error that says so.
     *
     * @param valueOptions the example's own options, e.g. {@code "--devices"}
     * @throws IllegalArgumentException for an unknown argument or a missing value
     */
    static Args parse(String[] args, String... valueOptions) {
        Set<String> known = Set.of(valueOptions);
        String engine = System.getProperty(Engine.ENGINE_PROPERTY, Engine.DEFAULT_ENGINE);
        boolean help = false;
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                help = true;
            } else if (a.equals("--engine")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--engine needs a name: naive, pooled or perdevice");
                }
                engine = args[++i];
            } else if (known.contains(a)) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value; try --help");
                }
                options.put(a, args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument '" + a + "'; try --help");
            }
        }
        return new Args(engine, help, options);
    }

    /** The value given for {@code name}, or {@code fallback}. */
    String option(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    /**
     * The integer given for {@code name}, or {@code fallback}.
     *
     * @throws IllegalArgumentException if the value is not an integer in {@code min..max}
     */
    int intOption(String name, int fallback, int min, int max) {
        String text = options.get(name);
        if (text == null) {
            return fallback;
        }
        try {
            int v = Integer.parseInt(text.strip());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below, with the range
        }
        throw new IllegalArgumentException(name + " " + text + " is invalid: give an integer in " + min + ".." + max);
    }

    /**
     * The number given for {@code name}, or {@code fallback}.
     *
     * @throws IllegalArgumentException if the value is not a number in {@code min..max}
     */
    double doubleOption(String name, double fallback, double min, double max) {
        String text = options.get(name);
        if (text == null) {
            return fallback;
        }
        try {
            double v = Double.parseDouble(text.strip());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below, with the range
        }
        throw new IllegalArgumentException(name + " " + text + " is invalid: give a number in " + min + ".." + max);
    }
}
