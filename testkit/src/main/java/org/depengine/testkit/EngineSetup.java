package org.depengine.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.depengine.api.Context;

/**
 * The engine a conformance run tests, and how it is set up: the engine name, its settings, the
 * contexts the randomized workloads spread ops over, the settings that give it one worker (for the
 * rules of {@link ThreadedConformance}), whether it has threads of its own, and the
 * {@link Configuration} of the cross product it runs in. Immutable; the {@code with…} methods return
 * a copy.
 *
 * <p>An engine module names its base setup (CPU ops, no listener); {@link EngineConformance} crosses it
 * with every {@link Configuration} that {@link #applies applies} to the engine, through
 * {@link #in(Configuration)}.
 *
 * @param engine the engine name, as {@code Engine.create} takes it, e.g. {@code "pooled"}
 * @param settings settings for every engine the suites create; none means the engine defaults
 * @param contexts the contexts ops are spread over in randomized workloads, the first taking the ops
 *     pushed to one context; at least one
 * @param singleWorkerSettings settings that, on top of {@code settings}, leave one worker for plain CPU ops
 * @param threaded whether the engine runs ops on threads of its own, so that independent ops overlap
 *     and a push returns before its op ran (false for an engine that runs each push to its end on the
 *     pushing thread, as {@code naive} does)
 * @param asyncDevices how many {@link AsyncStandInDevices} devices the asynchronous configurations
 *     spread ops over (1 or 2)
 * @param releaseAtLaunchSetting whether the engine reads {@value #RELEASE_AT_LAUNCH} (one that does not
 *     releases a device op's variables when its device work is done, so the configurations with the
 *     setting off do not apply to it)
 * @param configuration the configuration of the cross product this setup is in
 */
public record EngineSetup(String engine, Map<String, String> settings, List<Context> contexts,
        Map<String, String> singleWorkerSettings, boolean threaded, int asyncDevices, boolean releaseAtLaunchSetting,
        Configuration configuration) {

    /** The engine setting that decides whether a device op releases its variables at launch or when done. */
    public static final String RELEASE_AT_LAUNCH = "depengine.device.releaseAtLaunch";

    /** Where the ops of a configuration run. */
    public enum Ops {
        /** Synchronous CPU ops: each op is done when its function returns. */
        CPU,
        /**
         * Ops spread over the {@link AsyncStandInDevices} devices (first) and the CPU contexts: a device
         * op is launched when its function returns and done later, on the device's completion thread,
         * with device-side waits between streams.
         */
        ASYNC_DEVICE
    }

    /**
     * One point of the cross product every suite runs over: where ops run, whether a device op
     * releases its variables at launch ({@value #RELEASE_AT_LAUNCH}), and whether a listener is attached
     * (one that checks the listener protocol after each test, see {@link EngineTestBase}).
     */
    public enum Configuration {
        /** CPU ops, no listener: the base setup. */
        CPU(Ops.CPU, true, false),
        /** CPU ops with a listener attached. */
        CPU_LISTENED(Ops.CPU, true, true),
        /** Async device ops released at launch where the engine reads the setting. */
        ASYNC_DEVICE(Ops.ASYNC_DEVICE, true, false),
        /** As {@link #ASYNC_DEVICE}, with a listener attached. */
        ASYNC_DEVICE_LISTENED(Ops.ASYNC_DEVICE, true, true),
        /** Async device ops with {@value #RELEASE_AT_LAUNCH}{@code =false}: successors wait for done. */
        ASYNC_DEVICE_RELEASED_WHEN_DONE(Ops.ASYNC_DEVICE, false, false),
        /** As {@link #ASYNC_DEVICE_RELEASED_WHEN_DONE}, with a listener attached. */
        ASYNC_DEVICE_RELEASED_WHEN_DONE_LISTENED(Ops.ASYNC_DEVICE, false, true);

        private final Ops ops;
        private final boolean releaseAtLaunch;
        private final boolean listener;

        Configuration(Ops ops, boolean releaseAtLaunch, boolean listener) {
            this.ops = ops;
            this.releaseAtLaunch = releaseAtLaunch;
            this.listener = listener;
        }

        /** @return where the ops run */
        public Ops ops() {
            return ops;
        }

        /** @return the value of {@value EngineSetup#RELEASE_AT_LAUNCH} (meaningful for device ops only) */
        public boolean releaseAtLaunch() {
            return releaseAtLaunch;
        }

        /** @return whether a checking listener is attached to every engine the suites create */
        public boolean listener() {
            return listener;
        }
    }

    /** Copies the maps and lists; throws {@link NullPointerException} on a null and {@link IllegalArgumentException} on a bad value. */
    public EngineSetup {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(configuration, "configuration");
        settings = Map.copyOf(settings);
        contexts = List.copyOf(contexts);
        singleWorkerSettings = Map.copyOf(singleWorkerSettings);
        if (contexts.isEmpty()) {
            throw new IllegalArgumentException("an engine setup needs at least one context for its workloads");
        }
        if (asyncDevices < 1 || asyncDevices > 2) {
            throw new IllegalArgumentException("asyncDevices is " + asyncDevices + "; the stand-in has devices 0 and 1, use 1 or 2");
        }
    }

    /** The engine {@code engine} with its default settings, ops on {@code cpu:0}, threaded, in {@link Configuration#CPU}. */
    public static EngineSetup of(String engine) {
        return new EngineSetup(engine, Map.of(), List.of(Context.cpu()), Map.of(), true, 1, false, Configuration.CPU);
    }

    /** This setup with {@code settings} instead of its settings. */
    public EngineSetup withSettings(Map<String, String> settings) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded, asyncDevices, releaseAtLaunchSetting,
                configuration);
    }

    /** This setup with workloads spread over {@code contexts}. */
    public EngineSetup withContexts(List<Context> contexts) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded, asyncDevices, releaseAtLaunchSetting,
                configuration);
    }

    /** This setup with {@code singleWorkerSettings} as the settings that leave one worker. */
    public EngineSetup withSingleWorkerSettings(Map<String, String> singleWorkerSettings) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded, asyncDevices, releaseAtLaunchSetting,
                configuration);
    }

    /** This setup for an engine that runs each push to its end on the pushing thread (no threads of its own). */
    public EngineSetup withoutOwnThreads() {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, false, asyncDevices, releaseAtLaunchSetting,
                configuration);
    }

    /**
     * This setup for an engine that reads {@value #RELEASE_AT_LAUNCH}, with its asynchronous
     * configurations spread over {@code asyncDevices} stand-in devices.
     */
    public EngineSetup withReleaseAtLaunchSetting(int asyncDevices) {
        return new EngineSetup(engine, settings, contexts, singleWorkerSettings, threaded, asyncDevices, true, configuration);
    }

    /**
     * Whether {@code c} is a distinct point of the product for this engine: the configurations with
     * {@value #RELEASE_AT_LAUNCH} off apply only to an engine that reads it (any other already waits for
     * done, so they would repeat {@link Configuration#ASYNC_DEVICE}).
     */
    public boolean applies(Configuration c) {
        return c.releaseAtLaunch() || releaseAtLaunchSetting;
    }

    /** The configurations that {@link #applies apply} to this engine, in declaration order. */
    public List<Configuration> configurations() {
        List<Configuration> out = new ArrayList<>();
        for (Configuration c : Configuration.values()) {
            if (applies(c)) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * This base setup in configuration {@code c}: for {@link Ops#ASYNC_DEVICE}, the stand-in devices
     * first among the contexts, and {@value #RELEASE_AT_LAUNCH} set where the engine reads it.
     *
     * @throws IllegalArgumentException if {@code c} does not {@link #applies apply} to this engine
     */
    public EngineSetup in(Configuration c) {
        if (!applies(c)) {
            throw new IllegalArgumentException(c + " does not apply to engine '" + engine + "': it does not read " + RELEASE_AT_LAUNCH);
        }
        List<Context> ctxs = contexts;
        Map<String, String> s = settings;
        if (c.ops() == Ops.ASYNC_DEVICE) {
            ctxs = new ArrayList<>();
            for (int i = 0; i < asyncDevices; i++) {
                ctxs.add(Context.of(AsyncStandInDevices.TYPE, i));
            }
            ctxs.addAll(contexts);
            if (releaseAtLaunchSetting) {
                s = new HashMap<>(settings);
                s.put(RELEASE_AT_LAUNCH, Boolean.toString(c.releaseAtLaunch()));
            }
        }
        return new EngineSetup(engine, s, ctxs, singleWorkerSettings, threaded, asyncDevices, releaseAtLaunchSetting, c);
    }

    /**
     * The engine and its configuration in words, for test failures, e.g. {@code perdevice, ops on
     * [testkit_async:0, cpu:0], async device ops released when done (depengine.device.releaseAtLaunch=false),
     * listener attached}.
     */
    public String label() {
        StringBuilder b = new StringBuilder(engine).append(", ops on ").append(contexts);
        if (configuration.ops() == Ops.ASYNC_DEVICE) {
            if (!releaseAtLaunchSetting) {
                b.append(", async device ops released when done (the engine has no release at launch)");
            } else if (configuration.releaseAtLaunch()) {
                b.append(", async device ops released at launch");
            } else {
                b.append(", async device ops released when done (" + RELEASE_AT_LAUNCH + "=false)");
            }
        }
        b.append(configuration.listener() ? ", listener attached" : ", no listener");
        return b.toString();
    }
}
