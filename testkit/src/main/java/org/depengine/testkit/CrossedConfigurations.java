package org.depengine.testkit;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.testkit.EngineSetup.Configuration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Decides which points of {@link EngineConformance}'s cross product run: a configuration class runs
 * only if its configuration {@link EngineSetup#applies applies} to the engine, a suite in it only if
 * the suite applies to the setup ({@link ThreadedConformance} needs {@link EngineSetup#threaded()}) and
 * is in the sample.
 *
 * <p>The long form ({@value #LONG_PROPERTY}{@code =true}) runs every suite in every configuration that
 * applies. The short form, the default, keeps CI's time small with a deterministic sample: every suite
 * runs in {@link Configuration#CPU}, plus, on each engine, one other configuration per value of
 * {@value EngineSetup#RELEASE_AT_LAUNCH} the engine has (one on an engine without the setting, two on
 * one with it), rotated over the suites and offset by engine. So every configuration runs some suites
 * on every engine; on the three engines of this project each suite runs in each of the three other
 * configurations with release at launch on (one per engine), and on {@code perdevice} in one of the two
 * with it off, alternating from suite to suite.
 */
final class CrossedConfigurations implements ExecutionCondition {
    /** The system property asking for the long form. */
    static final String LONG_PROPERTY = "depengine.test.long";

    private static final Map<Class<?>, EngineSetup> BASE_SETUPS = new ConcurrentHashMap<>();
    private static final List<String> SUITES = suiteNames();

    /** For {@link org.junit.jupiter.api.extension.ExtendWith}. */
    CrossedConfigurations() {
    }

    /** The configuration named on {@code configClass}, a subclass of {@link EngineConformance.Configured}. */
    static Configuration configurationOf(Class<?> configClass) {
        InConfiguration in = configClass.getAnnotation(InConfiguration.class);
        if (in == null) {
            throw new IllegalStateException(configClass.getName() + " extends EngineConformance.Configured without naming its "
                    + "configuration: annotate it with @InConfiguration");
        }
        return in.value();
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isPresent() || context.getTestClass().isEmpty()) {
            return ConditionEvaluationResult.enabled("decided for the class");
        }
        Class<?> c = context.getTestClass().get();
        if (c.isAnnotationPresent(InConfiguration.class)) {
            Configuration config = configurationOf(c);
            EngineSetup base = baseSetup(context);
            return base.applies(config)
                    ? ConditionEvaluationResult.enabled(config + " applies to " + base.engine())
                    : ConditionEvaluationResult.disabled(config + " does not apply to engine '" + base.engine()
                            + "': it has no " + EngineSetup.RELEASE_AT_LAUNCH + " setting, its device ops are always released when done");
        }
        // A suite: declared in Configured, run inside the configuration class of the parent context.
        Class<?> configClass = context.getParent().flatMap(ExtensionContext::getTestClass).orElse(null);
        if (configClass == null || !configClass.isAnnotationPresent(InConfiguration.class)) {
            return ConditionEvaluationResult.enabled("not a suite of the cross product");
        }
        EngineSetup base = baseSetup(context);
        Configuration config = configurationOf(configClass);
        if (ThreadedConformance.class.isAssignableFrom(c) && !base.threaded()) {
            return ConditionEvaluationResult.disabled("engine '" + base.engine() + "' runs each op on its pushing thread: "
                    + "the threaded rules (overlap, exclusion, thread hygiene) do not apply");
        }
        if (Boolean.getBoolean(LONG_PROPERTY) || sampled(base, config, c.getSimpleName())) {
            return ConditionEvaluationResult.enabled(config + " on " + base.engine());
        }
        return ConditionEvaluationResult.disabled("short form: suite " + c.getSimpleName() + " runs in " + config + " on "
                + base.engine() + " in the long form only (-D" + LONG_PROPERTY + "=true)");
    }

    /**
     * Whether the short form runs {@code suite} in {@code config} on {@code base}'s engine: always in
     * {@link Configuration#CPU}; else if {@code config} is the one picked, for this suite, among the
     * other configurations with its value of {@value EngineSetup#RELEASE_AT_LAUNCH}.
     */
    static boolean sampled(EngineSetup base, Configuration config, String suite) {
        if (config == Configuration.CPU) {
            return true;
        }
        List<Configuration> group = new ArrayList<>();
        for (Configuration c : base.configurations()) {
            if (c != Configuration.CPU && c.releaseAtLaunch() == config.releaseAtLaunch()) {
                group.add(c);
            }
        }
        int suiteIndex = SUITES.indexOf(suite);
        if (suiteIndex < 0 || group.isEmpty()) {
            return true; // a suite this class does not know: run it rather than lose it
        }
        int pick = Math.floorMod(suiteIndex + engineOffset(base.engine()), group.size());
        return group.get(pick) == config;
    }

    // The project's engines get offsets 0, 1, 2, so that on one suite they pick different configurations.
    private static int engineOffset(String engine) {
        return switch (engine) {
            case "naive" -> 0;
            case "pooled" -> 1;
            case "perdevice" -> 2;
            default -> Math.floorMod(engine.hashCode(), 3);
        };
    }

    private static List<String> suiteNames() {
        return Arrays.stream(EngineConformance.Configured.class.getDeclaredClasses())
                .filter(k -> k.isAnnotationPresent(Nested.class))
                .map(Class::getSimpleName)
                .sorted(Comparator.naturalOrder())
                .toList();
    }

    /**
     * The base setup of the engine module's {@link EngineConformance} subclass: the test class of the
     * nearest enclosing context that is one, asked once per class.
     */
    private static EngineSetup baseSetup(ExtensionContext context) {
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            Class<?> k = c.getTestClass().orElse(null);
            if (k != null && EngineConformance.class.isAssignableFrom(k) && !Modifier.isAbstract(k.getModifiers())) {
                // The setup is an instance method, and a class's condition runs before any instance of it
                // exists: make one, as JUnit will, to ask it.
                return BASE_SETUPS.computeIfAbsent(k, t -> ((EngineConformance) ReflectionSupport.newInstance(t)).setup());
            }
        }
        throw new IllegalStateException(context.getUniqueId() + " is not nested in an EngineConformance subclass");
    }
}
