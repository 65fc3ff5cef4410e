package org.depengine.docscheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The error table of {@code docs/guide/errors.md} is checked against the code, row by row:
 * <ul>
 *   <li>every message it quotes (a backticked text with a space in it, in the "you get" column) is in a
 *   string literal of the main code; {@code …} stands for a part filled in at run time, and each part between
 *   is looked up on its own;</li>
 *   <li>every test it names in the "tested by" column ({@code Class.method}, {@code .method} for the class
 *   before, {@code Class.*}) exists: the class's source has that test method.</li>
 * </ul>
 * So a reworded message or a renamed test fails the build until the table says the same.
 */
class ErrorTableTest {
    private static final Path ROOT = SettingsReferenceTest.ROOT;
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern TEST = Pattern.compile("^([A-Z]\\w*)?\\.(\\w+|\\*)$");

    /** The main sources of every module, whose literals the quoted messages are looked up in. */
    private static List<Path> mainSources() throws IOException {
        List<Path> roots = new ArrayList<>();
        try (Stream<Path> dirs = Files.walk(ROOT, 4)) {
            dirs.filter(p -> p.endsWith(Path.of("src/main/java")) && !p.startsWith(ROOT.resolve("docs-check")))
                    .forEach(roots::add);
        }
        return roots;
    }

    /** Source files by simple class name, from every module's main and test sources. */
    private static Map<String, Path> classSources() throws IOException {
        Map<String, Path> out = new HashMap<>();
        try (Stream<Path> files = Files.walk(ROOT, 12)) {
            files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/")
                            && !p.toString().contains("/target/"))
                    .forEach(p -> out.putIfAbsent(p.getFileName().toString().replace(".java", ""), p));
        }
        return out;
    }

    @Test
    void everyQuotedMessageIsInTheCodeAndEveryTestNamedExists() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/guide/errors.md"));
        List<List<String>> rows = MarkdownTable.rows(page, "you did");
        assertTrue(rows.size() >= 30, "the table has only " + rows.size() + " rows");
        List<String> literals = StringLiterals.under(mainSources());
        Map<String, Path> classes = classSources();
        List<String> problems = new ArrayList<>();
        int messages = 0;
        int tests = 0;
        for (List<String> row : rows) {
            assertEquals(3, row.size(), "a row of three cells: " + row);
            String did = row.get(0);
            Matcher m = CODE.matcher(row.get(1));
            while (m.find()) {
                String quoted = m.group(1);
                if (!quoted.contains(" ")) {
                    continue; // a name (a class, a method, a setting), not a message
                }
                messages++;
                for (String part : quoted.split("…")) {
                    String p = part.strip();
                    if (!p.isEmpty() && literals.stream().noneMatch(l -> l.contains(p))) {
                        problems.add("'" + did + "': the message part \"" + p + "\" is in no string of the main code");
                    }
                }
            }
            String lastClass = null;
            Matcher t = CODE.matcher(row.get(2));
            while (t.find()) {
                String name = t.group(1);
                Matcher tm = TEST.matcher(name);
                if (name.contains("…") || !tm.matches()) {
                    continue; // prose in backticks (e.g. "the other `…IsContained` tests")
                }
                String cls = tm.group(1) != null ? tm.group(1) : lastClass;
                lastClass = cls;
                tests++;
                Path src = cls == null ? null : classes.get(cls);
                if (src == null) {
                    problems.add("'" + did + "': no test class " + cls + " (named as " + name + ")");
                } else if (!tm.group(2).equals("*")
                        && !Pattern.compile("void " + tm.group(2) + "\\(").matcher(Files.readString(src)).find()) {
                    problems.add("'" + did + "': " + cls + " has no test " + tm.group(2) + " (" + ROOT.relativize(src) + ")");
                }
            }
        }
        System.out.println("docs-check: the error table's " + rows.size() + " rows quote " + messages
                + " messages and name " + tests + " tests");
        assertEquals(List.of(), problems, "docs/guide/errors.md no longer says what the code does");
    }
}
