package org.depengine.api.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads every provider of one SPI with {@link ServiceLoader}, keyed by the name each gives itself.
 * Each provider is instantiated in its own try/catch: one that fails to load is kept, by class name
 * and cause, for the error messages, never silently dropped. Two providers of one name are kept too
 * and reported when that name is asked for.
 *
 * @param <P> the SPI type
 */
public final class ProviderLookup<P> {
    private static final Logger LOG = LoggerFactory.getLogger(ProviderLookup.class);

    private final String what;
    private final Map<String, List<P>> byName;
    private final List<String> broken;

    private ProviderLookup(String what, Map<String, List<P>> byName, List<String> broken) {
        this.what = what;
        this.byName = byName;
        this.broken = broken;
    }

    /**
     * Loads the providers of {@code spi} visible to this module and to the thread's context class loader.
     *
     * @param what what a provider offers, for messages ("engine", "device type")
     * @param nameOf reads a provider's name (its own method)
     */
    public static <P> ProviderLookup<P> load(Class<P> spi, String what, Function<P, String> nameOf) {
        Map<String, List<P>> byName = new LinkedHashMap<>();
        List<String> broken = new ArrayList<>();
        List<Class<?>> seen = new ArrayList<>();
        List<ServiceLoader<P>> loaders = new ArrayList<>();
        loaders.add(ServiceLoader.load(spi, ProviderLookup.class.getClassLoader() == null
                ? ClassLoader.getSystemClassLoader() : ProviderLookup.class.getClassLoader()));
        ClassLoader tccl = Thread.currentThread().getContextClassLoader();
        if (tccl != null) {
            loaders.add(ServiceLoader.load(spi, tccl));
        }
        for (ServiceLoader<P> loader : loaders) {
            var it = loader.stream().iterator();
            while (true) {
                ServiceLoader.Provider<P> provider;
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    provider = it.next();
                } catch (ServiceConfigurationError e) {
                    broken.add(e.getMessage());
                    LOG.warn("a {} provider could not be loaded: {}", what, e.getMessage(), e);
                    continue;
                }
                Class<?> type;
                try {
                    type = provider.type();
                } catch (ServiceConfigurationError e) {
                    broken.add(e.getMessage());
                    continue;
                }
                if (seen.contains(type)) {
                    continue; // the same class seen through a second class loader view
                }
                seen.add(type);
                try {
                    P p = provider.get();
                    String name = nameOf.apply(p);
                    byName.computeIfAbsent(name, k -> new ArrayList<>()).add(p);
                } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                    Throwable root = e;
                    while (root.getCause() != null && root.getCause() != root) {
                        root = root.getCause();
                    }
                    String msg = type.getName() + " failed to load: " + root;
                    broken.add(msg);
                    LOG.warn("{} provider {}", what, msg, e);
                }
            }
        }
        return new ProviderLookup<>(what, Collections.unmodifiableMap(byName), List.copyOf(broken));
    }

    /** The names offered, in discovery order (including names claimed twice). */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** Providers that failed to load, as "class: cause" lines. */
    public List<String> broken() {
        return broken;
    }

    /** Every provider that loaded, one per name (a name claimed twice is left out). */
    public List<P> unique() {
        List<P> out = new ArrayList<>();
        for (List<P> ps : byName.values()) {
            if (ps.size() == 1) {
                out.add(ps.get(0));
            }
        }
        return out;
    }

    /**
     * The one provider of that name.
     *
     * @param howToAdd a sentence saying how to add a provider, for the error when none is found
     * @throws IllegalStateException if none or several providers claim the name; the message names
     *     what was found, the providers that failed to load, and the fix
     */
    public P require(String name, String howToAdd) {
        List<P> ps = byName.get(name);
        if (ps == null || ps.isEmpty()) {
            StringBuilder sb = new StringBuilder("no ").append(what).append(" named '").append(name)
                    .append("' was found; found: ").append(byName.isEmpty() ? "none" : String.join(", ", byName.keySet()))
                    .append(". ").append(howToAdd);
            if (!broken.isEmpty()) {
                sb.append(" Providers that failed to load: ").append(String.join("; ", broken));
            }
            throw new IllegalStateException(sb.toString());
        }
        if (ps.size() > 1) {
            List<String> classes = new ArrayList<>();
            for (P p : ps) {
                classes.add(p.getClass().getName());
            }
            throw new IllegalStateException("two or more " + what + " providers are named '" + name + "': "
                    + String.join(" and ", classes) + "; remove all but one from the class or module path");
        }
        return ps.get(0);
    }
}
