package org.depengine.testkit;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.depengine.api.Context;

/**
 * The engine a conformance run tests, and how it is set up: the engine name, its settings, the
 * contexts the randomized workloads spread ops over, and the settings that give it one worker (for
 * the rules of {@link ThreadedConformance}). Immutable; the {@code with…} methods return a copy.
 *
 * @param engine the engine name, as {@code Engine.create} takes it, e.g. {@code "pooled"}
 * @param settings settings for every engine the suites create; none means the engine defaults
 * @param contexts the contexts ops are spread over in randomized workloads; at least one
 * @param singleWorkerSettings settings that, on top of {@code settings}, leave one worker for plain CPU ops
 * @param threaded whether the engine runs ops on threads of its own, so that independent ops overlap
 *     and a push returns before its op ran (false for an engine that runs each push to its end on the
 *     pushing thread, as {@code naive} does)
 */
public record EngineSetup(String engine, Map<String, String> settings, List<Context> contexts,
        Map<String, String> singleWorkerSettings, boolean threaded) {

    /** Copies the maps and lists; throws {@link NullPointerException} on a null and {@link IllegalArgumentException} on no contexts. */
    public EngineSetup {
        Objects.requireNonNull(engine, "engine");
        settings = Map.copyOf(settings);
        contexts = List.copyOf(contexts);
        singleWorkerSettings = Map.copyOf(singleWorkerSettings);
        if (contexts.isEmpty()) {
            throw new IllegalArgumentException("an engine setup needs at least one context for its workloads");
        }
    }

    /** The engine {@code engine} with its default settings, ops on {@code cpu:0}, threaded. */
    public static EngineSetup of(String engine) {
        return new EngineSetup(engine, Map.of(), List.of(Context.cpu()), Map.of(), true);
    }

    /** This setup with {@code settings} instead of its settings. */
    public EngineSetup withSettings(Map<String, String> settings) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded);
    }

    /** This setup with workloads spread over {@code contexts}. */
    public EngineSetup withContexts(List<Context> contexts) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded);
    }

    /** This setup with {@code singleWorkerSettings} as the settings that leave one worker. */
    public EngineSetup withSingleWorkerSettings(Map<String, String> singleWorkerSettings) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded);
    }

    /** This setup for an engine that runs each push to its end on the pushing thread (no threads of its own). */
    public EngineSetup withoutOwnThreads() {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, false);
    }
}
