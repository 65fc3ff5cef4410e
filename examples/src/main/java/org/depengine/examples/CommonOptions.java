package org.depengine.examples;

import org.depengine.api.Engine;
import picocli.CommandLine.Option;

/**
 * The options every example has (a picocli mixin): {@code --engine NAME} and {@code --help}.
 * Not thread-safe; picocli fills it once before the example runs.
 */
final class CommonOptions {
    @Option(names = "--engine", paramLabel = "NAME",
            description = "naive, pooled or perdevice (default: the " + Engine.ENGINE_PROPERTY
                    + " system property, else " + Engine.DEFAULT_ENGINE + ")")
    String engine = System.getProperty(Engine.ENGINE_PROPERTY, Engine.DEFAULT_ENGINE);

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;
}
