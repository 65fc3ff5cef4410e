package org.depengine.examples;

import org.depengine.api.Engine;

/** The command line every example shares: {@code --engine NAME} and {@code --help}. */
final class Args {
    final String engine;
    final boolean help;

    private Args(String engine, boolean help) {
        this.engine = engine;
        this.help = help;
    }

    /**
     * Parses {@code --engine NAME} and {@code --help}; anything else is an error that says so.
     *
     * @throws IllegalArgumentException for an unknown argument or a missing engine name
     */
    static Args parse(String[] args) {
        String engine = System.getProperty(Engine.ENGINE_PROPERTY, Engine.DEFAULT_ENGINE);
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--help":
                case "-h":
                    help = true;
                    break;
                case "--engine":
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("--engine needs a name: naive, pooled or perdevice");
                    }
                    engine = args[++i];
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument '" + args[i] + "'; try --help");
            }
        }
        return new Args(engine, help);
    }
}
