package org.depengine.testkit;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Decides which points of {@link KVStoreConformance}'s cross product (store × engine × workers) run, as
 * {@link CrossedConfigurations} does for the engines: a configuration class runs if the store is crossed
 * with its engine and opens that many workers; a suite in it if its {@link Workers} include the point's
 * and it is in the sample; a case if the point has what it {@link Needs}.
 *
 * <p>The long form ({@value CrossedConfigurations#LONG_PROPERTY}{@code =true}) runs every suite at every
 * point that applies. The short form, the default, runs each suite at two points: the store's base engine
 * (perdevice where it is crossed with it) with the most workers the suite takes, and one other point
 * rotated over the suites, so every point runs some suites.
 */
final class KVStoreCrossing implements ExecutionCondition {
    private static final Map<Class<?>, StoreSetup> BASE = new ConcurrentHashMap<>();
    private static final List<String> SUITES = Arrays.stream(KVStoreConformance.Configured.class.getDeclaredClasses())
            .filter(k -> k.isAnnotationPresent(Nested.class)).map(Class::getSimpleName)
            .sorted(Comparator.naturalOrder()).toList();

    /** For {@link org.junit.jupiter.api.extension.ExtendWith}. */
    KVStoreCrossing() {
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestClass().isEmpty()) {
            return ConditionEvaluationResult.enabled("not a class");
        }
        StoreSetup base = base(context);
        if (context.getTestMethod().isPresent()) {
            return method(context, base);
        }
        Class<?> c = context.getTestClass().get();
        InStore point = c.getAnnotation(InStore.class);
        if (point != null) {
            if (!base.engines().contains(point.engine())) {
                return ConditionEvaluationResult.disabled(base.type() + " is not crossed with engine " + point.engine());
            }
            return point.workers() <= base.maxWorkers() ? ConditionEvaluationResult.enabled(point.engine() + ", "
                    + point.workers() + " workers") : ConditionEvaluationResult.disabled(base.type() + " opens at most "
                    + base.maxWorkers() + " workers a test");
        }
        InStore at = context.getParent().flatMap(ExtensionContext::getTestClass).map(k -> k.getAnnotation(InStore.class))
                .orElse(null);
        if (at == null || !c.isAnnotationPresent(Workers.class)) {
            return ConditionEvaluationResult.enabled("not a suite of the cross product");
        }
        List<Integer> counts = counts(c, base);
        if (!counts.contains(at.workers())) {
            return ConditionEvaluationResult.disabled("suite " + c.getSimpleName() + " runs with " + counts + " workers");
        }
        if (Boolean.getBoolean(CrossedConfigurations.LONG_PROPERTY) || sampled(base, c, at)) {
            return ConditionEvaluationResult.enabled(at.engine() + ", " + at.workers() + " workers");
        }
        return ConditionEvaluationResult.disabled("short form: suite " + c.getSimpleName() + " runs on " + at.engine()
                + " with " + at.workers() + " workers in the long form only (-D" + CrossedConfigurations.LONG_PROPERTY
                + "=true)");
    }

    private static ConditionEvaluationResult method(ExtensionContext context, StoreSetup base) {
        Needs needs = context.getRequiredTestMethod().getAnnotation(Needs.class);
        InStore at = null;
        for (ExtensionContext p = context; p != null && at == null; p = p.getParent().orElse(null)) {
            at = p.getTestClass().map(k -> k.getAnnotation(InStore.class)).orElse(null);
        }
        if (needs == null || at == null) {
            return ConditionEvaluationResult.enabled("needs nothing particular");
        }
        StoreSetup point = base.in(at.engine(), at.workers());
        if (point.workers() < needs.workers()) {
            return ConditionEvaluationResult.disabled("needs " + needs.workers() + " workers, this point has " + point.workers());
        }
        if (needs.syncRounds() && !point.synchronousRounds()) {
            return ConditionEvaluationResult.disabled(base.type() + "'s pulls do not wait for the whole round");
        }
        if (needs.priorities() && !point.ordersByPriority()) {
            return ConditionEvaluationResult.disabled("engine '" + point.engine() + "' does not order ready ops by priority "
                    + "on a single worker (perdevice with depengine.cpu.priorityWorkers=1 does)");
        }
        return ConditionEvaluationResult.enabled("has what it needs");
    }

    /** The suite's worker counts this store can open. */
    private static List<Integer> counts(Class<?> suite, StoreSetup base) {
        List<Integer> out = new ArrayList<>();
        for (int w : suite.getAnnotation(Workers.class).value()) {
            if (w <= base.maxWorkers()) {
                out.add(w);
            }
        }
        return out;
    }

    /** Whether the short form runs {@code suite} at {@code at}: its base point, or the one picked for it. */
    static boolean sampled(StoreSetup base, Class<?> suite, InStore at) {
        List<Integer> counts = counts(suite, base);
        String baseEngine = base.engines().contains("perdevice") ? "perdevice" : base.engines().get(0);
        int most = counts.get(counts.size() - 1);
        if (at.engine().equals(baseEngine) && at.workers() == most) {
            return true;
        }
        List<String> others = new ArrayList<>();
        for (String e : base.engines()) {
            for (int w : counts) {
                if (!(e.equals(baseEngine) && w == most)) {
                    others.add(e + "/" + w);
                }
            }
        }
        if (others.isEmpty()) {
            return false;
        }
        int i = Math.floorMod(SUITES.indexOf(suite.getSimpleName()) + base.type().hashCode(), others.size());
        return others.get(i).equals(at.engine() + "/" + at.workers());
    }

    /** The store setup of the {@link KVStoreConformance} subclass the context is nested in, asked once per class. */
    private static StoreSetup base(ExtensionContext context) {
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            Class<?> k = c.getTestClass().orElse(null);
            if (k != null && KVStoreConformance.class.isAssignableFrom(k) && !Modifier.isAbstract(k.getModifiers())) {
                return BASE.computeIfAbsent(k, t -> ((KVStoreConformance) ReflectionSupport.newInstance(t)).store());
            }
        }
        throw new IllegalStateException(context.getUniqueId() + " is not nested in a KVStoreConformance subclass");
    }
}
