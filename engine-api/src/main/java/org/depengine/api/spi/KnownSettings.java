package org.depengine.api.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells known {@code depengine.*} keys from mistyped ones, so that a mistyped key is reported instead
 * of silently ignored. The known keys are those the modules declare in their
 * {@link org.depengine.api.settings.SettingsCatalog}s ({@link Settings#catalog()}), including keys with
 * a placeholder segment such as {@code depengine.device.<type>.disabled}, and the keys under the
 * namespaces a module validates itself ({@link Settings#namespaces()}).
 *
 * <p>Thread-safe: the catalogs are immutable, and the keys already warned about are a concurrent set.
 */
public final class KnownSettings {
    private static final Logger LOG = LoggerFactory.getLogger(KnownSettings.class);

    private static final String PREFIX = "depengine.";

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
        if (Settings.declared(key).isPresent()) {
            return true;
        }
        for (String ns : Settings.namespaces()) {
            if (key.startsWith(ns) && key.length() > ns.length()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The known key closest to {@code key} (by edit distance, case ignored), for "did you mean". A key
     * with a placeholder is compared with the placeholder filled from {@code key} where it fits.
     *
     * @param key the setting's key
     * @return the closest known key
     */
    public static String closest(String key) {
        List<String> candidates = new ArrayList<>();
        for (Setting<?> s : Settings.catalog()) {
            candidates.add(filled(s.key(), key));
        }
        for (String ns : Settings.namespaces()) {
            candidates.add(ns + "*");
        }
        return closest(key, candidates);
    }

    /** {@code pattern} with its placeholder segment, if any, replaced by the segment of {@code key} at that place. */
    private static String filled(String pattern, String key) {
        int open = pattern.indexOf('<');
        if (open < 0) {
            return pattern;
        }
        String prefix = pattern.substring(0, open);
        if (!key.startsWith(prefix)) {
            return pattern;
        }
        String rest = key.substring(prefix.length());
        int dot = rest.indexOf('.');
        return dot <= 0 ? pattern : prefix + rest.substring(0, dot) + pattern.substring(pattern.indexOf('>', open) + 1);
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
                    + "? (Every setting is listed in docs/guide/settings.md.)";
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
