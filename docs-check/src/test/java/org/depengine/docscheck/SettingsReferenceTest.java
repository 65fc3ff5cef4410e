package org.depengine.docscheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.depengine.api.settings.Setting;
import org.depengine.api.settings.Settings;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/guide/settings.md} is what the modules' settings catalogs generate, byte for byte; and the
 * catalogs it was generated from are every catalog of the repository (so a new module's settings cannot be
 * left out by a missing dependency of this module). With {@code -Ddepengine.test.regenerateDocs=true} it
 * rewrites the page instead of failing.
 */
class SettingsReferenceTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path PAGE = ROOT.resolve("docs/guide/settings.md");
    private static final String SERVICES = "META-INF/services/org.depengine.api.settings.SettingsCatalog";

    @Test
    void theCommittedPageIsWhatTheCatalogsGenerate() throws IOException {
        String generated = SettingsReference.markdown(SettingsReference.catalogs());
        if (Boolean.getBoolean("depengine.test.regenerateDocs")) {
            Files.writeString(PAGE, generated);
            return;
        }
        String committed = Files.exists(PAGE) ? Files.readString(PAGE) : "";
        if (!committed.equals(generated)) {
            fail(PAGE + " differs from what the settings catalogs generate (first difference at line "
                    + firstDifference(committed, generated) + "). A setting was added, changed or removed in the code: "
                    + "regenerate the page with\n  " + SettingsReference.REGENERATE + "\nand commit it.");
        }
    }

    @Test
    void everyCatalogOfTheRepositoryIsOnThisModulesClassPath() throws IOException {
        Set<String> declared = new TreeSet<>();
        try (Stream<Path> files = Files.walk(ROOT, 8)) {
            for (Path f : files.filter(p -> p.endsWith(Path.of("src/main/resources", SERVICES))).toList()) {
                if (!f.startsWith(ROOT.resolve("docs-check"))) {
                    for (String line : Files.readAllLines(f)) {
                        if (!line.isBlank() && !line.startsWith("#")) {
                            declared.add(line.strip());
                        }
                    }
                }
            }
        }
        Set<String> loaded = new TreeSet<>();
        SettingsReference.catalogs().forEach(c -> loaded.add(c.type().getName()));
        assertTrue(declared.size() >= 7, "found only " + declared);
        assertEquals(declared, loaded, "every module with a settings catalog must be a dependency of docs-check "
                + "(pom.xml), so that the reference lists its settings");
    }

    @Test
    void everyDeclaredSettingIsOnThePage() throws IOException {
        String page = Files.readString(PAGE);
        List<String> missing = new ArrayList<>();
        for (Setting<?> s : Settings.catalog()) {
            if (!page.contains("| `" + s.key() + "` |")) {
                missing.add(s.key());
            }
        }
        assertTrue(missing.isEmpty(), "not on " + PAGE + ": " + missing);
    }

    static int firstDifference(String a, String b) {
        String[] x = a.split("\n", -1);
        String[] y = b.split("\n", -1);
        int i = 0;
        while (i < x.length && i < y.length && x[i].equals(y[i])) {
            i++;
        }
        return i + 1;
    }
}
