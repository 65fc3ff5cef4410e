package org.depengine.api.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code depengine.*} setting this project reads, in one place, so that a mistyped key is
 * reported instead of silently ignored. The modules that read a key keep their own constant for it;
 * their tests check that it is listed here. Three kinds of entry:
 * <ul>
 *   <li>exact keys, e.g. {@code depengine.cpu.workers};</li>
 *   <li>the per-device-type key {@code depengine.device.<type>.disabled}, for any type (plugins
 *   included);</li>
 *   <li>namespaces whose keys the owning module validates itself: {@code depengine.test.*} (the test
 *   suites), {@code depengine.kvstore.*} (the key-value store modules) and {@code depengine.sim.*}
 *   (the example device plugin). A new module with several settings claims a namespace here.</li>
 * </ul>
 *
 * <p>Thread-safe: immutable tables, and a concurrent set of the keys already warned about.
 */
public final class KnownSettings {
    private static final Logger LOG = LoggerFactory.getLogger(KnownSettings.class);

    private static final String PREFIX = "depengine.";
    private static final String DEVICE = "depengine.device.";
    private static final String DISABLED = ".disabled";

    /** The exact keys, by the module that reads them. */
    private static final Set<String> KEYS = Set.of(
            // engine-api
            "depengine.engine", "depengine.exitTimeoutMs", "depengine.device.keepOpen",
            // engine-core
            "depengine.hangDoctorMs",
            // engine-perdevice
            "depengine.cpu.workers", "depengine.cpu.priorityWorkers", "depengine.device.workers",
            "depengine.device.copyWorkers", "depengine.device.priorityWorkers", "depengine.device.releaseAtLaunch",
            // engine-pooled
            "depengine.pooled.workers", "depengine.pooled.copyWorkers",
            // profiler
            "depengine.profiler.autostart", "depengine.profiler.file", "depengine.profiler.mode",
            "depengine.profiler.dumpPeriodMs", "depengine.profiler.ringCapacity", "depengine.profiler.maxThreads",
            "depengine.profiler.htmlFile");

    /** Namespaces validated by the module that owns them. */
    private static final List<String> NAMESPACES = List.of("depengine.test.", "depengine.kvstore.", "depengine.sim.");

    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private KnownSettings() {
    }

    /**
     * Whether {@code key} is a setting of this project (or under a namespace a module validates).
     *
     * @param key the setting's key
     * @return whether {@code key} is a setting of this project (or under a namespace a module validates)
     */
    public static boolean isKnown(String key) {
        if (KEYS.contains(key)) {
            return true;
        }
        for (String ns : NAMESPACES) {
            if (key.startsWith(ns) && key.length() > ns.length()) {
                return true;
            }
        }
        if (key.startsWith(DEVICE) && key.endsWith(DISABLED)) {
            String type = key.substring(DEVICE.length(), key.length() - DISABLED.length());
            return !type.isEmpty() && type.indexOf('.') < 0;
        }
        return false;
    }

    /**
     * The known key closest to {@code key} (by edit distance, case ignored), for "did you mean".
     *
     * @param key the setting's key
     * @return the closest known key
     */
    public static String closest(String key) {
        List<String> candidates = new ArrayList<>(KEYS);
        // depengine.device.X.Y resembles the per-type key for X; anything else, the generic form.
        String rest = key.startsWith(DEVICE) ? key.substring(DEVICE.length()) : "";
        int dot = rest.indexOf('.');
        candidates.add(DEVICE + (dot > 0 ? rest.substring(0, dot) : "<type>") + DISABLED);
        for (String ns : NAMESPACES) {
            candidates.add(ns + "*");
        }
        return closest(key, candidates);
    }

    /**
     * The candidate closest to {@code name} (by edit distance, case ignored; ties to the one that sorts
     * first), for "did you mean" messages of any module's settings.
     *
     * @param name the name to match
     * @param candidates the names to choose from
     * @return the closest candidate
     * @throws NoSuchElementException if there is no candidate
     */
    public static String closest(String name, Collection<String> candidates) {
        String lower = name.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(lower, c.toLowerCase(Locale.ROOT));
            if (d < bestDistance || (d == bestDistance && c.compareTo(best) < 0)) {
                best = c;
                bestDistance = d;
            }
        }
        if (best == null) {
            throw new NoSuchElementException("no candidate names to compare '" + name + "' with");
        }
        return best;
    }

    /**
     * The warnings for the unknown {@code depengine.*} keys of {@code config}, one per key, each naming
     * the key, where it came from and the closest known key; a key is warned about once per JVM.
     * Logs them at WARN and returns them (for tests).
     */
    static List<String> warnUnknown(EngineConfig config) {
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, String> e : config.asMap().entrySet()) {
            String key = e.getKey();
            if (!key.startsWith(PREFIX) || isKnown(key) || !WARNED.add(key)) {
                continue;
            }
            String w = "unknown setting " + config.describe(key) + " is ignored; did you mean " + closest(key)
                    + "? (The settings are listed in the README.)";
            LOG.warn(w);
            warnings.add(w);
        }
        return warnings;
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
