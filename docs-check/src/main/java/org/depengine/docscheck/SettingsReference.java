package org.depengine.docscheck;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.SettingsCatalog;

/**
 * The settings reference ({@code docs/guide/settings.md}), generated from every {@link SettingsCatalog}
 * visible to the service loader: one table per declaring module (its JPMS name, read from its
 * module-info), sorted by module and key, then the namespaces the modules check themselves. The same
 * catalogs give the same page, byte for byte.
 */
public final class SettingsReference {
    /** The one-line command that rewrites the page, as the page and the failing test say it. */
    public static final String REGENERATE = "./mvnw -B -ntp -pl docs-check -am verify -Dtest=SettingsReferenceTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Ddepengine.test.regenerateDocs=true";

    /** One catalog as loaded: its class and the module that declares it. */
    public record Catalog(Class<?> type, String module, List<Setting<?>> settings, List<String> namespaces) {
    }

    private SettingsReference() {
    }

    /** Every catalog the service loader finds, by module name then class name. */
    public static List<Catalog> catalogs() {
        List<Catalog> out = new ArrayList<>();
        for (ServiceLoader.Provider<SettingsCatalog> p : ServiceLoader.load(SettingsCatalog.class).stream().toList()) {
            if (out.stream().anyMatch(c -> c.type() == p.type())) {
                continue; // found twice (module path and class path)
            }
            SettingsCatalog c = p.get();
            out.add(new Catalog(p.type(), moduleOf(p.type()), c.settings(), c.namespaces()));
        }
        out.sort(Comparator.comparing(Catalog::module).thenComparing(c -> c.type().getName()));
        return out;
    }

    /** The page for {@code catalogs}. */
    public static String markdown(List<Catalog> catalogs) {
        StringBuilder b = new StringBuilder();
        b.append("# Settings reference\n\n");
        b.append("<!-- Generated from the modules' SettingsCatalogs by docs-check's SettingsReferenceTest: do not edit.\n");
        b.append("     Regenerate: ").append(REGENERATE).append(" -->\n\n");
        b.append("Every `depengine.*` setting that a module of this build reads, generated from the code:\n");
        b.append("each module declares its settings as `Setting` constants in a `SettingsCatalog`\n");
        b.append("(`org.depengine.api.settings`), and this page is what the catalogs say.\n\n");
        b.append("- Give a setting as a system property (`-Ddepengine.pooled.workers=4`), or to `EngineConfig`.\n");
        b.append("- A value is read with its surrounding blanks removed.\n");
        b.append("- An invalid value is an `IllegalArgumentException` in one form:\n");
        b.append("  `system property KEY='RAW' is invalid: expected ...` (or `setting KEY (SOURCE)='RAW' ...`).\n");
        b.append("- A key with `<type>` in it stands for one key per device type, e.g. `depengine.device.opencl.disabled`.\n");
        b.append("- A `depengine.*` key that no catalog declares, outside the namespaces below, is warned about once,\n");
        b.append("  naming the closest known key.\n");
        b.append("- What the engine settings do, in words: [Engines and their settings](engines.md#settings).\n");
        Map<String, List<Catalog>> byModule = new TreeMap<>();
        for (Catalog c : catalogs) {
            byModule.computeIfAbsent(c.module(), m -> new ArrayList<>()).add(c);
        }
        for (Map.Entry<String, List<Catalog>> e : byModule.entrySet()) {
            List<Setting<?>> settings = new ArrayList<>();
            for (Catalog c : e.getValue()) {
                settings.addAll(c.settings());
            }
            if (settings.isEmpty()) {
                continue;
            }
            settings.sort(Comparator.comparing(Setting::key));
            b.append("\n## Module `").append(e.getKey()).append("`\n\n");
            b.append("| key | values | default | what it does |\n");
            b.append("|---|---|---|---|\n");
            for (Setting<?> s : settings) {
                b.append("| `").append(s.key()).append("` | ").append(cell(s.expected())).append(" | ")
                        .append(cell(s.defaultText())).append(" | ").append(cell(s.description())).append(" |\n");
            }
        }
        b.append("\n## Namespaces the modules check themselves\n\n");
        b.append("Keys under these prefixes are not declared one by one here; the module named reads and checks them.\n\n");
        b.append("| prefix | module | where it is described |\n");
        b.append("|---|---|---|\n");
        List<String[]> namespaces = new ArrayList<>();
        for (Catalog c : catalogs) {
            for (String ns : c.namespaces()) {
                namespaces.add(new String[] {ns, c.module()});
            }
        }
        namespaces.sort(Comparator.comparing(a -> a[0]));
        for (String[] ns : namespaces) {
            b.append("| `").append(ns[0]).append("` | `").append(ns[1]).append("` | ").append(describedIn(ns[0])).append(" |\n");
        }
        return b.toString();
    }

    private static String describedIn(String namespace) {
        switch (namespace) {
            case "depengine.test.":
                return "[the tests' switches](setup.md#what-the-tests-need)";
            case "depengine.kvstore.":
                return "[the KVStore's settings](kvstore.md#settings), [the distributed stores'](scaling-out.md#settings-of-the-distributed-stores)";
            case "depengine.sim.":
                return "[the device plugin example](examples.md#the-device-plugin-example)";
            default:
                return "the module's documentation";
        }
    }

    /** A table cell: pipes escaped, so a value's text never splits the row. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /** The JPMS name of the module {@code type} is in, read from the module-info of its jar or classes folder. */
    static String moduleOf(Class<?> type) {
        if (type.getModule().isNamed()) {
            return type.getModule().getName();
        }
        URL where = type.getProtectionDomain().getCodeSource().getLocation();
        try {
            Path p = Path.of(where.toURI());
            if (Files.isDirectory(p)) {
                try (InputStream in = Files.newInputStream(p.resolve("module-info.class"))) {
                    return ModuleDescriptor.read(in).name();
                }
            }
            try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + p.toUri()), Map.of());
                 InputStream in = Files.newInputStream(jar.getPath("module-info.class"))) {
                return ModuleDescriptor.read(in).name();
            }
        } catch (IOException | java.net.URISyntaxException e) {
            throw new IllegalStateException("cannot read the module-info of " + where + ", where settings catalog "
                    + type.getName() + " comes from: every module of this project is a named module", e);
        }
    }
}
